import { fauxqsSqsModule } from '../../test/aws/harness/fauxqs-module';

interface FauxStore {
  getQueue(url: string): unknown;
  getQueueByName(name: string): unknown;
}

let installed: Promise<void> | undefined;

/**
 * Makes this process's fauxqs find a queue by its loopback URL
 * (`http://127.0.0.1:<port>/<account>/<name>`) as well as by the URL it names it with
 * (`http://sqs.<region>.localhost:<port>/...`, which a function's container cannot resolve).
 * A function's SDK client sends each call to its queue's URL: given the loopback one, its calls
 * go straight to the emulator, with no forwarding stand-in between that would double every
 * call's HTTP work on the bench's thread.
 */
export function answerLoopbackQueueUrls(): Promise<void> {
  installed ??= install();
  return installed;
}

async function install(): Promise<void> {
  const store = await fauxqsSqsModule<{ SqsStore: { prototype: FauxStore } }>('sqsStore.js');
  const proto = store.SqsStore.prototype;
  const getQueue = proto.getQueue;
  proto.getQueue = function (this: FauxStore, url: string) {
    const found = getQueue.call(this, url);
    if (found !== undefined || !URL.canParse(url) || new URL(url).hostname !== '127.0.0.1') return found;
    return this.getQueueByName(new URL(url).pathname.split('/').filter(Boolean).at(-1) ?? '');
  };
}
