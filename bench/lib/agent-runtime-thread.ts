import { Worker } from 'node:worker_threads';

export type Behaviour = 'quick' | 'slow' | 'failing';

type Note = { type: 'listening'; port: number } | { type: 'arrivals'; list: [string, number][] } | { type: 'closed' };

/**
 * The agent runtime of the tenants bench, in a worker thread of its own: on its own event loop,
 * as the runtime is a host of its own, so a POST's arrival is timed when the runtime takes it,
 * not when the bench's thread (emulated SQS, its URL proxy, the pollers) gets round to it. It
 * answers by the agent the event is for: quick (at once), slow (after `slowAnswerMs`), or
 * failing (503 with Retry-After, not counted as arrived).
 */
export class AgentRuntimeThread {
  /** When each event first arrived (as timed in the runtime's thread) and how often. */
  readonly arrivals = new Map<string, { first: number; count: number }>();
  private readonly worker: Worker;
  private closed?: () => void;

  private constructor(
    worker: Worker,
    readonly url: string,
  ) {
    this.worker = worker;
    worker.on('message', (m: Note) => {
      if (m.type === 'arrivals') {
        for (const [id, at] of m.list) {
          const seen = this.arrivals.get(id);
          if (!seen) this.arrivals.set(id, { first: at, count: 1 });
          else {
            seen.count++;
            seen.first = Math.min(seen.first, at);
          }
        }
      }
      if (m.type === 'closed') this.closed?.();
    });
  }

  static async start(options: { slowAnswerMs: number; failingRetryAfterSeconds: number }): Promise<AgentRuntimeThread> {
    const worker = new Worker(new URL('./agent-runtime-worker.mjs', import.meta.url), { workerData: options });
    const port = await new Promise<number>((resolve, reject) => {
      worker.once('error', reject);
      const onListening = (m: Note) => {
        if (m.type !== 'listening') return;
        worker.off('message', onListening);
        resolve(m.port);
      };
      worker.on('message', onListening);
    });
    return new AgentRuntimeThread(worker, `http://127.0.0.1:${port}/events`);
  }

  behave(agentId: string, how: Behaviour): void {
    this.worker.postMessage({ type: 'behave', agentId, how });
  }

  /** Stops the runtime once its last arrivals are reported. */
  async close(): Promise<void> {
    const done = new Promise<void>((resolve) => {
      this.closed = resolve;
    });
    this.worker.postMessage({ type: 'close' });
    await Promise.race([done, new Promise((r) => setTimeout(r, 3_000))]);
    await this.worker.terminate();
  }
}
