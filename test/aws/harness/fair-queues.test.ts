import { ReceiveMessageCommand, SQSClient, SendMessageBatchCommand } from '@aws-sdk/client-sqs';
import { startFauxqs } from 'fauxqs';
import { afterAll, describe, expect, it } from 'vitest';
import { fairOrder, serveFairly } from './fair-queues';

const m = (group: string | undefined, n: number) => ({ group, n });

describe('fair queues: a tenant with a backlog does not hold back the others', () => {
  it('serves quiet tenants first, then the noisy ones with the fewest in flight first, each in the order it came', () => {
    const ready = [m('a', 1), m('a', 2), m('b', 3), m('q', 4), m(undefined, 5), m('a', 6), m('b', 7)];
    const shares = {
      inFlight: new Map([
        ['a', 40],
        ['b', 31],
        ['q', 1],
      ]),
      processingMs: new Map<string, number>(),
    };
    expect(fairOrder(ready, shares).map((x) => x.n)).toEqual([4, 5, 3, 7, 1, 2, 6]);
  });

  it('takes a tenant as noisy by its share of processing time, even with few messages in flight', () => {
    const ready = [m('slow', 1), m('quick', 2)];
    const shares = {
      inFlight: new Map([
        ['slow', 3],
        ['quick', 1],
      ]),
      processingMs: new Map([
        ['slow', 9_000],
        ['quick', 50],
      ]),
    };
    expect(fairOrder(ready, shares).map((x) => x.n)).toEqual([2, 1]);
  });

  it('keeps the order it came in while no tenant is noisy', () => {
    const ready = [m('a', 1), m('b', 2), m('a', 3)];
    const shares = {
      inFlight: new Map([
        ['a', 2],
        ['b', 1],
      ]),
      processingMs: new Map<string, number>(),
    };
    expect(fairOrder(ready, shares).map((x) => x.n)).toEqual([1, 2, 3]);
  });

  describe('over the emulated SQS', async () => {
    await serveFairly();
    const fauxqs = await startFauxqs({ port: 0, logger: false });
    afterAll(() => fauxqs.stop());
    const sqs = new SQSClient({ region: 'us-east-1', endpoint: fauxqs.address, credentials: { accessKeyId: 'x', secretAccessKey: 'x' } });

    it("a receive serves a quiet tenant's messages before a noisy tenant's backlog, with their MessageGroupId", async () => {
      const { queueUrl: QueueUrl } = fauxqs.createQueue('fair', { attributes: { VisibilityTimeout: '60' } });
      const send = (group: string, from: number, n: number) =>
        sqs.send(
          new SendMessageBatchCommand({
            QueueUrl,
            Entries: Array.from({ length: n }, (_, i) => ({ Id: `m${i}`, MessageBody: `${group} ${from + i}`, MessageGroupId: group })),
          }),
        );
      for (let i = 0; i < 6; i++) await send('noisy', i * 10, 10);
      const receive = async () =>
        (await sqs.send(new ReceiveMessageCommand({ QueueUrl, MaxNumberOfMessages: 10, MessageSystemAttributeNames: ['MessageGroupId'] })))
          .Messages ?? [];
      // 40 of the noisy tenant's in flight: more than 30, and all of the queue's.
      for (let i = 0; i < 4; i++) expect(await receive()).toHaveLength(10);
      await send('quiet', 0, 3);
      const next = await receive();
      expect(next.slice(0, 3).map((x) => x.Body)).toEqual(['quiet 0', 'quiet 1', 'quiet 2']);
      expect(next.slice(0, 3).map((x) => x.Attributes?.MessageGroupId)).toEqual(['quiet', 'quiet', 'quiet']);
      expect(next.slice(3).map((x) => x.Body)).toEqual(Array.from({ length: 7 }, (_, i) => `noisy ${40 + i}`));
    });
  });
});
