import type { AppContext } from '../shared/ports/app-context';
import type { LocalQueues } from '../shared/adapters/local/local-queues';
import { dispatchBatch } from '../shared/dispatch/dispatch-batch';
import { pollOnce } from '../shared/polling/poll-once';
import { sweepOnce } from '../shared/sweep/sweep-once';
import type { BackgroundJob } from './background';

/**
 * As on AWS: batches of 10, and a visibility timeout well above one batch's worst case (its
 * events are posted together, each within the 10 s POST timeout); no longer, since it is
 * also how long the events a killed process had in flight wait after a restart.
 */
export const consumerBatchSize = 10;
export const consumerVisibilitySeconds = 20;
/**
 * Batches in flight at once. On AWS the event source mapping starts with five concurrent
 * batches and scales up; one at a time here (waiting for the slowest event of a batch before
 * the next receive) left the consumer behind the intake under load, and events waited in the
 * queue for most of a second. The intake comes first, though: it has the code host's 10 s
 * to answer, while a queued event only waits. So while the intake is behind (`intakeBusy`),
 * the consumer narrows to one batch and the queue absorbs the burst.
 */
export const consumerConcurrency = 4;

export interface LocalJobsOptions {
  /** True while the intake is falling behind (local/intake-pressure.ts). */
  intakeBusy?: () => boolean;
  /**
   * With WEBHOOK_PROXY_URL: true while the relay reader is listening. Every redelivery comes
   * through the relay, so one asked for while nobody listens is lost as the first was: the
   * sweep waits for the reader instead of spending its few redeliveries per delivery.
   */
  relayListening?: () => boolean;
}
/**
 * The in-process stand-ins for what AWS runs: the SQS event source mapping (the consumer
 * loop: receive, dispatch, delete what succeeded, leave failures to their backoff) and the
 * two schedules (poller every POLL_INTERVAL_SECONDS, redelivery sweep every SWEEP_INTERVAL_SECONDS).
 */
export function localJobs(ctx: AppContext, queues: LocalQueues, options: LocalJobsOptions = {}): BackgroundJob[] {
  const { queue } = queues;
  const consumer: BackgroundJob = {
    name: 'dispatch-consumer',
    idleMs: 1000,
    concurrency: consumerConcurrency,
    narrow: options.intakeBusy,
    wake: (signal) =>
      new Promise<void>((resolve) => {
        signal.addEventListener('abort', () => resolve(), { once: true });
        queue.waitForMessages(1000).then(resolve, resolve);
      }),
    async runOnce() {
      const messages = await queue.receive(consumerBatchSize, consumerVisibilitySeconds);
      if (messages.length === 0) return false;
      const { failedMessageIds } = await dispatchBatch(ctx, messages, queue);
      const failed = new Set(failedMessageIds);
      for (const m of messages) if (!failed.has(m.messageId)) await queue.delete(m.receiptHandle);
      return messages.length === consumerBatchSize;
    },
  };
  const poller: BackgroundJob = {
    name: 'poller',
    idleMs: ctx.config.pollIntervalSeconds * 1000,
    async runOnce() {
      await pollOnce(ctx);
      return false;
    },
  };
  const sweep: BackgroundJob = {
    name: 'redelivery-sweep',
    idleMs: ctx.config.sweepIntervalSeconds * 1000,
    async runOnce() {
      if (options.relayListening && !options.relayListening()) {
        ctx.logger.info('redelivery sweep skipped: the relay reader is not listening');
        return false;
      }
      await sweepOnce(ctx);
      return false;
    },
  };
  return [consumer, poller, sweep];
}
