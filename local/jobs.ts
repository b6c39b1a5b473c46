import type { AppContext } from '../shared/ports/app-context';
import type { LocalQueues } from '../shared/adapters/local/local-queues';
import { defaultCircuitOptions } from '../shared/dispatch/circuit';
import { CircuitBoard } from '../shared/dispatch/circuit-board';
import { singleLane } from '../shared/dispatch/lane';
import { providerWork } from '../shared/wiring/provider-work';
import { emptyReport, pollOnce, recoverMissed } from '../shared/polling/poll-once';
import { planPollRound } from '../shared/polling/poll-plan';
import { pollWorkItems } from '../shared/polling/poll-work';
import { sweepOnce } from '../shared/sweep/sweep-once';
import { planSweepRound } from '../shared/sweep/sweep-plan';
import { sweepWorkItems } from '../shared/sweep/sweep-work';
import type { InboundMessage } from '../shared/ports';
import type { BackgroundJob } from './background';
import { DispatchPool } from './dispatch-pool';

/**
 * Deliveries in flight at most. A POST the agent runtime holds takes one slot for up to its
 * 10 s limit, so the pool is sized for the held ones as well as the quick ones: at 40 events
 * a second with one POST in 20 held, about 20 slots are waiting at any time (the throughput
 * model is in docs/reliability.md).
 */
export const consumerPoolSize = 100;
/**
 * The intake comes first: it has the code host's 10 s to answer, while a queued event only
 * waits. So while the intake is behind (`intakeBusy`), at most this many deliveries younger
 * than a second run (the ones still using this process's CPU); held POSTs do not count.
 */
export const consumerNarrowSize = 10;
/** Above the 10 s POST limit; no longer, since it is also how long the events a killed process had in flight wait after a restart. */
export const consumerVisibilitySeconds = 20;

export interface LocalJobsOptions {
  /** The polling work queue: the poller plans its rounds onto it and in-process workers read them. Absent: one whole round per tick. */
  pollWork?: LocalQueues;
  /** The sweep's work queue: the sweep plans one item per hook onto it and in-process workers walk them. Absent: one whole round per tick. */
  sweepWork?: LocalQueues;
  /** True while the intake is falling behind (local/intake-pressure.ts). */
  intakeBusy?: () => boolean;
  /**
   * With WEBHOOK_PROXY_URL: true while the relay reader is listening. Every redelivery comes
   * through the relay, so one asked for while nobody listens is lost as the first was: the
   * sweep waits for the reader instead of spending its few redeliveries per delivery.
   */
  relayListening?: () => boolean;
  /** The circuits over the agent runtime (the console shows them); new ones when not given. */
  circuit?: CircuitBoard;
  /** Deliveries in flight at most (default `consumerPoolSize`). */
  poolSize?: number;
}

/** The local runtime's circuits, one per agent runtime and agent: each opening is counted (`dispatch_circuit_open`) and logged. */
export function localCircuit(ctx: Pick<AppContext, 'clock' | 'metrics' | 'logger'>): CircuitBoard {
  return new CircuitBoard(ctx.clock, defaultCircuitOptions, (s, key) => {
    ctx.metrics.count('dispatch_circuit_open');
    ctx.logger.warn('agent runtime circuit opened: its events wait until a probe is answered', {
      circuit: key,
      reason: s.reason,
      openUntil: s.openUntil === undefined ? undefined : new Date(s.openUntil).toISOString(),
    });
  });
}

/**
 * The in-process stand-ins for what AWS runs: the SQS event source mapping (the consumer
 * loop: receive, dispatch, delete what succeeded, leave failures to their backoff) and the
 * two schedules (poller every POLL_INTERVAL_SECONDS, redelivery sweep every SWEEP_INTERVAL_SECONDS).
 */
export function localJobs(ctx: AppContext, queues: LocalQueues, options: LocalJobsOptions = {}): BackgroundJob[] {
  const { queue } = queues;
  const circuit = options.circuit ?? localCircuit(ctx);
  const pool = new DispatchPool(ctx, queue, {
    size: options.poolSize ?? consumerPoolSize,
    narrowSize: consumerNarrowSize,
    narrow: options.intakeBusy,
    visibilitySeconds: consumerVisibilitySeconds,
    lane: singleLane(ctx, queue, queues.dlq),
    circuits: circuit,
    work: providerWork,
  });
  const consumer: BackgroundJob = {
    name: 'dispatch-consumer',
    idleMs: 1000,
    // With no room (pool full, circuit open), a queued message is no reason to wake: the idle pause runs out instead.
    wake: (signal) =>
      new Promise<void>((resolve) => {
        signal.addEventListener('abort', () => resolve(), { once: true });
        if (pool.room() > 0) queue.waitForMessages(1000).then(resolve, resolve);
      }),
    // One round: fill the pool, then wait for a delivery to end or, while there is room, for a message to arrive.
    async runOnce() {
      await pool.fill();
      if (pool.size === 0) return false;
      const waits = [pool.nextSettled()];
      if (pool.room() > 0) waits.push(queue.waitForMessages(1000));
      else if (options.intakeBusy?.()) waits.push(ctx.sleep(250)); // fresh deliveries age out of the narrowing
      await Promise.race(waits);
      return true;
    },
    drain: () => pool.drain(),
  };
  const poller: BackgroundJob = {
    name: 'poller',
    idleMs: ctx.config.pollIntervalSeconds * 1000,
    async runOnce() {
      if (!options.pollWork) await pollOnce(ctx);
      else {
        await planPollRound(ctx, options.pollWork.queue);
        await recoverMissed(ctx, emptyReport([]));
      }
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
      if (options.sweepWork) await planSweepRound(ctx, options.sweepWork.queue);
      else await sweepOnce(ctx);
      return false;
    },
  };
  return [
    consumer,
    poller,
    sweep,
    ...(options.pollWork ? [pollWorker(ctx, options.pollWork)] : []),
    ...(options.sweepWork ? [sweepWorker(ctx, options.sweepWork, options.relayListening)] : []),
  ];
}

/** Work items a worker takes at once (the event source's batch on AWS). */
const workBatch = 10;
/** A worker's item stays hidden this long before it is given again (the AWS worker's timeout, twice). */
const pollWorkVisibilitySeconds = 100;
const sweepWorkVisibilitySeconds = 240;

/**
 * Two in-process workers of a work queue, side by side: what the queue's event source runs on
 * AWS. A failed item stays in flight until its visibility ends, then is given again
 * (dead-lettered after its last receive); the others are deleted.
 */
function workQueueWorker(
  name: string,
  work: LocalQueues,
  visibilitySeconds: number,
  handle: (batch: InboundMessage[]) => Promise<{ failedMessageIds: string[] }>,
  ready: () => boolean = () => true,
): BackgroundJob {
  return {
    name,
    idleMs: 1000,
    concurrency: 2,
    wake: () => work.queue.waitForMessages(1000).then(() => undefined),
    async runOnce() {
      if (!ready()) return false;
      const batch = await work.queue.receive(workBatch, visibilitySeconds);
      if (batch.length === 0) return false;
      const { failedMessageIds } = await handle(batch);
      for (const m of batch) if (!failedMessageIds.includes(m.messageId)) await work.queue.delete(m.receiptHandle);
      return true;
    },
  };
}

/** The polling work queue's workers. */
function pollWorker(ctx: AppContext, work: LocalQueues): BackgroundJob {
  return workQueueWorker('poll-worker', work, pollWorkVisibilitySeconds, (batch) => pollWorkItems(ctx, batch));
}

/**
 * The sweep work queue's workers; a walk its budget stopped continues on the same queue. With
 * a relay, they wait while its reader is not listening, as the planner does.
 */
function sweepWorker(ctx: AppContext, work: LocalQueues, relayListening?: () => boolean): BackgroundJob {
  const handle = (batch: InboundMessage[]) => sweepWorkItems(ctx, batch, { continueOn: work.queue });
  return workQueueWorker('sweep-worker', work, sweepWorkVisibilitySeconds, handle, relayListening);
}
