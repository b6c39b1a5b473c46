import { mkdirSync } from 'node:fs';
import { Worker } from 'node:worker_threads';
import { sdkClientDefaults } from '../aws/sdk-client-defaults';

export interface EmbeddedDynamo {
  endpoint: string;
  close(): Promise<void>;
}

type WorkerNote = { type: 'listening'; port: number } | { type: 'error'; message: string } | { type: 'closed'; message?: string };

/** How long close() waits for LevelDB to close before ending the thread anyway. */
const closeTimeoutMs = 10_000;

/**
 * Serves the real DynamoDB wire protocol with dynalite: persisted on disk (LevelDB) under
 * `path`, or in memory when `path` is omitted (tests). dynalite does its LevelDB and
 * request work in JavaScript, so it runs in a worker thread: on the caller's event loop it
 * took a fifth of the CPU the intake and the consumer need, and delayed both. The store
 * adapter talks HTTP to it either way, so product code is the same as against DynamoDB.
 * The thread ends with the process (a kill needs no clean-up; LevelDB's lock is the OS's).
 */
export async function startEmbeddedDynamo(options: { path?: string; port?: number } = {}): Promise<EmbeddedDynamo> {
  // The table's items include token metadata: owner-only, whatever LevelDB's default would be.
  if (options.path) mkdirSync(options.path, { recursive: true, mode: 0o700 });
  // execArgv: [] because the worker is plain JavaScript: inheriting `--import tsx` doubled its start time.
  const worker = new Worker(new URL('./embedded-dynamo-worker.mjs', import.meta.url), {
    workerData: { path: options.path, port: options.port },
    execArgv: [],
  });
  // Never the reason a process stays up: whoever started it closes it, or the process ends it.
  worker.unref();
  const exited = new Promise<number>((resolve) => worker.once('exit', resolve));
  let started = false;
  let closing: Promise<void> | undefined;
  const port = await new Promise<number>((resolve, reject) => {
    const fail = (e: Error) => reject(new Error(`embedded DynamoDB did not start: ${e.message}`));
    worker.on('error', (e) => {
      // After the start, a crash of the thread is as fatal as it was when dynalite ran in-process;
      // once closing, it is the thread ending while its last requests fail.
      if (closing) return;
      if (started) throw e;
      fail(e);
    });
    void exited.then((code) => fail(new Error(`thread exited with code ${code}`)));
    worker.on('message', (m: WorkerNote) => {
      if (m.type === 'listening') {
        started = true;
        resolve(m.port);
      }
      if (m.type === 'error') {
        fail(new Error(m.message));
        void worker.terminate();
      }
    });
  });
  return {
    endpoint: `http://127.0.0.1:${port}`,
    close: () =>
      (closing ??= (async () => {
        worker.postMessage('close');
        const timer = setTimeout(() => void worker.terminate(), closeTimeoutMs);
        await exited;
        clearTimeout(timer);
      })()),
  };
}

/** Client settings for the embedded server: fixed local credentials, no AWS account needed. */
export function embeddedDynamoClientConfig(endpoint: string) {
  return {
    endpoint,
    region: 'local',
    credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
    maxAttempts: 3,
    ...sdkClientDefaults,
  };
}
