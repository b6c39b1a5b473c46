import type { Logger } from '../shared/observability/logger';

/** A job the local runtime runs repeatedly until stopped (the queue consumer, the poller, the sweep). */
export interface BackgroundJob {
  name: string;
  /** One round; resolves with whether there may be more work right away. */
  runOnce(): Promise<boolean>;
  /** Pause between rounds when there was nothing to do, in ms. */
  idleMs: number;
  /** Resolves early when work arrives (e.g. a message was enqueued), so latency stays low. */
  wake?: (signal: AbortSignal) => Promise<void>;
  /** How many rounds may run at once (default 1), each in its own loop. */
  concurrency?: number;
  /** While this answers true, only the first loop runs; the others wait `idleMs` and ask again. */
  narrow?: () => boolean;
  /** Waits for the work a round started and left running (the consumer's deliveries in flight), once the loops stop. */
  drain?: () => Promise<void>;
}

function pause(ms: number, signal: AbortSignal, wake?: (s: AbortSignal) => Promise<void>): Promise<void> {
  return new Promise((resolve) => {
    const inner = new AbortController();
    const done = () => {
      clearTimeout(timer);
      inner.abort();
      signal.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal.addEventListener('abort', done, { once: true });
    wake?.(inner.signal).then(done, () => {});
  });
}

/**
 * Runs a job in `concurrency` loops until `signal` aborts. A failing round is logged and
 * retried after the idle pause: a store or queue outage must slow the runtime down, never
 * stop it. While `narrow` says so, the loops after the first stand by.
 */
export async function runLoop(job: BackgroundJob, signal: AbortSignal, logger: Logger): Promise<void> {
  await Promise.all(Array.from({ length: Math.max(1, job.concurrency ?? 1) }, (_, i) => loop(job, i, signal, logger)));
  await job.drain?.();
}

async function loop(job: BackgroundJob, index: number, signal: AbortSignal, logger: Logger): Promise<void> {
  while (!signal.aborted) {
    if (index > 0 && job.narrow?.()) {
      await pause(job.idleMs, signal);
      continue;
    }
    let more = false;
    try {
      more = await job.runOnce();
    } catch (e) {
      logger.error(`${job.name} round failed`, { job: job.name, error: e });
    }
    if (!more && !signal.aborted) await pause(job.idleMs, signal, job.wake);
  }
}
