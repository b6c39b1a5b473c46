import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';

/** What an invocation ended with: the handler's result, or what it threw (Lambda's "Unhandled" error). */
export type InvokeOutcome = { ok: true; result: unknown } | { ok: false; error: { name?: string; message?: string; stack?: string } };

/**
 * One function of the stack, run as Lambda runs it: its real handler
 * (`functions/<role>/handler.ts`) in a worker thread of its own, with the environment the
 * template gives it. A worker thread, not a child process: each has its own `process.env` and
 * module graph (so the SDK clients and the per-container caches are the function's own), it
 * starts in a fraction of a process's time and memory (seven functions on two shared cores),
 * and the suite still talks to it only by messages and over the wire. Invocations are
 * serialised, one at a time, as a Lambda container takes them.
 */
export class LambdaWorker {
  private readonly worker: Worker;
  private readonly ready: Promise<void>;
  private readonly pending = new Map<number, (o: InvokeOutcome) => void>();
  private nextId = 1;
  private queue: Promise<unknown> = Promise.resolve();

  constructor(
    readonly role: string,
    readonly functionName: string,
    readonly env: Record<string, string>,
    readonly timeoutMs: number,
    /**
     * The container thread's nice value (Linux: a thread's own). A bench that runs the emulated
     * services on the same cores lowers its containers' priority, so that the services answer
     * as hosts of their own would, not slower for the containers' load.
     */
    readonly nice = 0,
  ) {
    const handlerUrl = pathToFileURL(join(import.meta.dirname, '..', '..', '..', 'functions', role, 'handler.ts')).href;
    this.worker = new Worker(new URL('./lambda-worker-entry.mjs', import.meta.url), {
      env,
      workerData: { handlerUrl, nice },
      execArgv: [],
      stdout: true,
      stderr: true,
    });
    // Log lines are the function's CloudWatch stream, stdout and stderr alike (console.warn and
    // console.error write to stderr): kept, not printed.
    const keep = (chunk: Buffer) => this.logLines.push(...chunk.toString('utf8').split('\n').filter(Boolean));
    this.worker.stdout.on('data', keep);
    this.worker.stderr.on('data', keep);
    this.ready = new Promise<void>((resolve, reject) => {
      this.worker.once('error', reject);
      const onReady = (m: { ready?: boolean }) => {
        if (m.ready) {
          this.worker.off('message', onReady);
          resolve();
        }
      };
      this.worker.on('message', onReady);
    });
    this.worker.on('message', (m: { id?: number } & InvokeOutcome) => {
      if (m.id === undefined) return;
      const settle = this.pending.get(m.id);
      this.pending.delete(m.id);
      settle?.(m);
    });
  }

  /** The function's log lines so far (JSON lines: Powertools and the product's logger). */
  readonly logLines: string[] = [];

  /** Invocations so far, and the milliseconds they ran (what Lambda bills as duration, here on this machine). */
  readonly usage = { invocations: 0, ms: 0 };

  /** One invocation with `event`, after the ones before it. */
  invoke(event: unknown): Promise<InvokeOutcome> {
    return this.inTurn(async () => {
      await this.ready; // a cold start is not billed duration
      const started = performance.now();
      const outcome = await this.ask({ event, timeoutMs: this.timeoutMs, functionName: this.functionName });
      this.usage.invocations++;
      this.usage.ms += performance.now() - started;
      return outcome;
    });
  }

  /** This container's clock moved on by `ms` (Date.now in its thread), after the invocations before it: a warm container's interval passes without waiting. */
  passTime(ms: number): Promise<void> {
    return this.inTurn(async () => {
      await this.ask({ passMs: ms });
    });
  }

  /**
   * This container's V8 heap (its isolate's, not the process's: the threads share one), read
   * beside whatever invocation runs. What a warm container's memory grows by, less native memory
   * outside V8's `external` count.
   */
  async heap(): Promise<{ usedMb: number; totalMb: number; externalMb: number }> {
    const outcome = await this.ask({ heap: true });
    if (!outcome.ok) throw new Error(`heap statistics: ${outcome.error.message}`);
    return outcome.result as { usedMb: number; totalMb: number; externalMb: number };
  }

  /** Runs `work` after everything queued before it, as a container takes one invocation at a time. */
  private inTurn<T>(work: () => Promise<T>): Promise<T> {
    const run = this.queue.then(work);
    this.queue = run.catch(() => undefined);
    return run;
  }

  /** Posts `message` to the container's thread under a fresh id, once it is ready, and waits for its answer. */
  private async ask(message: Record<string, unknown>): Promise<InvokeOutcome> {
    await this.ready;
    const id = this.nextId++;
    return new Promise<InvokeOutcome>((resolve) => {
      this.pending.set(id, resolve);
      this.worker.postMessage({ id, ...message });
    });
  }

  async start(): Promise<void> {
    await this.ready;
  }

  async close(): Promise<void> {
    await this.worker.terminate();
  }
}
