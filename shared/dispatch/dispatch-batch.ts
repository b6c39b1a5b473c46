import type { AppContext } from '../ports/app-context';
import type { TriggerEvent } from '../domain/model';
import type { Logger } from '../observability/logger';
import type { ConsumerQueue, InboundMessage, Queue } from '../ports';
import { backoffSeconds } from './backoff';
import type { DispatchCircuit } from './circuit';
import { busyRetrySeconds, dispatchClaim } from './dispatch-claim';
import { eventIdOfPointer, fromQueueMessage, PoisonMessageError, type ReadEvent } from './event-message';
import { keys } from '../store/table-design';
import { postEvent, type PostOutcome } from './post-event';
import { type ClaimRun, finishWith, giveBack, withClaim } from '../store/with-claim';
import { connectionTakesEvents } from './connection-gate';
import { deliveryGate, gateReason } from './delivery-gate';
import { runFollowUp } from './follow-up';
import { isLastReceive } from './redrive-policy';
import { EventProgress } from './event-progress';
import { isSnareReadBack, workSnareReadBack } from './snare-read-back';
import { isAppLifecycleJob, workAppLifecycleJob } from './app-lifecycle-job';

export interface BatchResult {
  /** Messages to leave on the queue (SQS `batchItemFailures`); the others are done. */
  failedMessageIds: string[];
}

export type Outcome = 'done' | 'failed';

/** The 10 s an agent runtime has to answer a POST (the slow lane's and the local runtime's limit). */
export const postTimeoutMs = 10_000;

/**
 * How one queue of trigger events is worked: where its messages are postponed and copied to,
 * how long a POST may take, and where an event goes whose POST did not answer in time.
 */
export interface Lane {
  name: 'main' | 'slow';
  /** Postpones this lane's messages (receipt handles belong to their queue). */
  consumer: ConsumerQueue;
  /** This lane's queue: throttled and deferred events are copied back onto it. */
  queue: Queue;
  postTimeoutMs: number;
  /**
   * Where an event whose POST got no answer within `postTimeoutMs` goes, to be tried there
   * with the full limit: the slow lane. Without it the event is retried in place.
   */
  overflow?: Queue;
  /** Seconds before a failed event's next try on this lane. */
  backoff(receiveCount: number, retryAfterSeconds?: number): number;
  /** The POST's deadline signal (tests end the one of a chosen event by hand). */
  deadline?: (ms: number, eventId: string) => AbortSignal;
}

export interface DispatchOptions {
  /** The lane the messages came from; by default the one lane of the local runtime (10 s limit, retried in place). */
  lane?: Lane;
  /** Shared by every attempt of the process or container; without it every event is tried (no circuit). */
  circuit?: DispatchCircuit;
}

/** The local runtime's one lane, and the default: every POST gets the full limit, failures back off in place. */
export function singleLane(ctx: Pick<AppContext, 'queue'>, consumer: ConsumerQueue): Lane {
  return { name: 'main', consumer, queue: ctx.queue, postTimeoutMs, backoff: backoffSeconds };
}

/**
 * Delivers a batch of queued trigger events to the agent runtime, each independently (see
 * `dispatchMessage`); the batch is done when each of its events is, and no event waits for
 * another longer than its lane's POST limit.
 */
export async function dispatchBatch(
  ctx: AppContext,
  messages: readonly InboundMessage[],
  consumer: ConsumerQueue,
  options: DispatchOptions = {},
): Promise<BatchResult> {
  const outcomes = await Promise.all(messages.map((m) => dispatchMessage(ctx, m, consumer, options)));
  return { failedMessageIds: messages.filter((_, i) => outcomes[i] === 'failed').map((m) => m.messageId) };
}

/**
 * Delivers one queued trigger event to the agent runtime:
 * - a message that can never be read (poison) is reported failed at once with no delay,
 *   so it reaches the dead-letter queue intact after the queue's last receive (RELIABILITY 17);
 * - while the circuit is open the event is not sent: a delayed copy goes back on its lane's
 *   queue, so an agent runtime that is down does not use up the event's receives;
 * - a claim per event id makes two copies in flight deliver once, on any lane (RELIABILITY 18);
 * - a POST without an answer within the lane's limit moves the event to the slow lane, where
 *   it gets the full limit (on a lane without one, it is retried in place);
 * - a non-2xx or network failure postpones the message with its lane's backoff and reports it
 *   failed, so the queue dead-letters it after its last try;
 * - throttling (429, or 503 with Retry-After) re-enqueues a delayed copy instead, so
 *   throttling alone never dead-letters an event (RELIABILITY 19).
 * A message that fails on its last allowed receive is counted `events_dead_lettered` (and
 * logged) here, since the queue moves it to the dead-letter queue without telling anyone.
 */
export async function dispatchMessage(
  ctx: AppContext,
  m: InboundMessage,
  consumer: ConsumerQueue,
  options: DispatchOptions = {},
): Promise<Outcome> {
  const lane = options.lane ?? singleLane(ctx, consumer);
  const outcome = await dispatchOne(ctx, m, lane, options.circuit).catch(async (e: unknown) => {
    ctx.logger.error('dispatch failed unexpectedly', { messageId: m.messageId, error: e });
    await postpone(ctx, lane, m, lane.backoff(m.receiveCount));
    return 'failed' as Outcome;
  });
  if (outcome === 'failed' && isLastReceive(m.receiveCount)) {
    ctx.metrics.count('events_dead_lettered');
    ctx.logger.error('message failed on its last receive; the queue moves it to the dead-letter queue', {
      messageId: m.messageId,
      receiveCount: m.receiveCount,
      lane: lane.name,
    });
  }
  return outcome;
}

async function postpone(ctx: AppContext, lane: Lane, m: InboundMessage, seconds: number): Promise<void> {
  await lane.consumer.changeVisibility(m.receiptHandle, seconds).catch((e: unknown) => {
    ctx.logger.warn('could not postpone message', { messageId: m.messageId, error: e });
  });
}

/**
 * Whether an unreadable message is a pointer to the claim-check body of an event already
 * delivered: the blob is removed once its event is delivered, and a second copy of the
 * message (an intake attempt taken over after a crash queues the same event again) then
 * points at nothing. That copy is a duplicate to drop, not poison for the dead-letter queue.
 */
async function copyOfDelivered(ctx: AppContext, body: string): Promise<boolean> {
  const eventId = eventIdOfPointer(body);
  if (eventId === undefined) return false;
  return (await ctx.store.get(keys.dispatchClaim(eventId)))?.state === 'done';
}

/** Copies the message onto `queue` with a delay; false when the queue did not take it. */
async function sendCopy(ctx: AppContext, queue: Queue, eventId: string, body: string, delaySeconds: number): Promise<boolean> {
  try {
    // Named by the event, as every trigger-event message is (event-message.ts).
    await queue.sendBatch([{ id: eventId, body, delaySeconds: Math.max(0, Math.min(900, Math.ceil(delaySeconds))) }]);
    return true;
  } catch (e) {
    ctx.logger.warn('could not re-enqueue event; retrying in place', { eventId, error: e });
    return false;
  }
}

/** The history of an event a gate stopped: `dropped`, so that it does not read as queued for 30 days. */
async function dropped(ctx: AppContext, event: ReadEvent['event'], m: InboundMessage): Promise<void> {
  const progress = new EventProgress(ctx, event, m);
  await progress.write(progress.statusRows('dropped'));
}

async function dispatchOne(ctx: AppContext, m: InboundMessage, lane: Lane, circuit: DispatchCircuit | undefined): Promise<Outcome> {
  // The queue also carries the collection service's accepted deliveries, read back here (snare-read-back.ts).
  if (isSnareReadBack(m.body)) return workSnareReadBack(ctx, m, lane);
  // And the GitHub App's lifecycle deliveries, whose read-backs need code-host credentials (app-lifecycle-job.ts).
  if (isAppLifecycleJob(m.body)) return workAppLifecycleJob(ctx, m, lane);
  let read: ReadEvent;
  try {
    read = await fromQueueMessage(ctx, m.body);
  } catch (e) {
    if (!(e instanceof PoisonMessageError)) throw e;
    if (await copyOfDelivered(ctx, m.body)) {
      ctx.metrics.count('dispatch_duplicate');
      ctx.logger.info('copy of an event already delivered (its claim-check body is gone with it); dropped', { messageId: m.messageId });
      return 'done';
    }
    ctx.metrics.count('dispatch_poison');
    ctx.logger.error('unreadable queue message; it goes to the dead-letter queue as it is', {
      messageId: m.messageId,
      receiveCount: m.receiveCount,
      problem: e.message,
    });
    await postpone(ctx, lane, m, 0);
    return 'failed';
  }
  const { event } = read;
  const log = ctx.logger.child({
    eventId: event.id,
    trigger: event.trigger,
    subscriptionId: event.subscriptionId,
    deliveryId: event.deliveryId,
    messageId: m.messageId,
    ...(lane.name === 'main' ? {} : { lane: lane.name }),
  });
  // A deleted or suspended App installation's events stop here, whenever they were queued.
  if (!(await connectionTakesEvents(ctx, event.connectionId))) {
    ctx.metrics.count('dispatch_connection_inactive');
    log.info('the connection no longer takes events (its GitHub App installation is deleted or suspended); event dropped');
    await dropped(ctx, event, m);
    return 'done';
  }
  // A replay passes every gate its first delivery passed, read again now: it may be asked for
  // days later, after its subscription, connection or repository was taken away.
  if (event.replayOf !== undefined) {
    const refusal = await deliveryGate(ctx, event);
    if (refusal !== undefined) {
      ctx.metrics.count('dispatch_replay_refused');
      log.info(`replay not delivered: ${gateReason(refusal)}; event dropped`, { refusal, replayOf: event.replayOf });
      await dropped(ctx, event, m);
      return 'done';
    }
  }
  // Follow-ups (follow-up.ts): a read of the code host finishes, or drops, what the delivery could not settle.
  if ((await runFollowUp(ctx, event)) === 'handled') {
    const settled = new EventProgress(ctx, event, m);
    await settled.write(settled.statusRows('settled'));
    return 'done';
  }
  const url = ctx.config.agentRuntimeUrl;
  if (url === undefined) {
    log.info(`trigger event ${event.trigger} for agent ${event.agentId} (AGENT_RUNTIME_URL is not set, so it is only logged)`, {
      triggerEvent: event,
    });
    ctx.metrics.count('dispatch_logged');
    const logged = new EventProgress(ctx, event, m);
    await logged.write(logged.statusRows('logged'));
    return 'done';
  }
  const admission = circuit?.admit() ?? { kind: 'go' };
  if (admission.kind === 'wait') {
    // Spread over a few seconds, so the events held while it was open do not all come back in the same instant.
    const delay = (admission.untilMs - ctx.clock.now()) / 1000 + (m.messageId.charCodeAt(m.messageId.length - 1) % 5);
    if (await sendCopy(ctx, lane.queue, event.id, m.body, delay)) {
      ctx.metrics.count('dispatch_deferred');
      log.info('agent runtime circuit is open; event deferred', { delaySeconds: Math.ceil(delay) });
      return 'done';
    }
    await postpone(ctx, lane, m, delay);
    return 'failed';
  }
  const probe = admission.kind === 'probe';
  // The history is read alongside the POST and written with its outcome (event-progress.ts).
  const progress = new EventProgress(ctx, event, m);
  const { posted, startedAt } = await postClaimed(ctx, { lane, event, url, progress, log }, circuit, probe);
  if (posted.kind === 'done') {
    circuit?.abandon(probe);
    ctx.metrics.count('dispatch_duplicate');
    log.info('event already delivered; copy dropped');
    return 'done';
  }
  if (posted.kind !== 'ran') {
    circuit?.abandon(probe);
    log.info('event is being delivered by another worker; checking back later');
    await postpone(ctx, lane, m, posted.kind === 'busy' ? busyRetrySeconds(ctx.clock, posted.leaseEndsAtMs) : 5);
    return 'failed';
  }
  const outcome = posted.value;
  if (outcome.kind === 'delivered') {
    if (read.blobKey) await ctx.blobs.delete(read.blobKey).catch(() => undefined);
    ctx.metrics.count('dispatch_delivered');
    log.info('trigger event delivered', { status: outcome.status });
    return 'done';
  }
  if (outcome.timedOut && lane.overflow) {
    // Slow is not failed: the circuit hears of it only if the slow lane's full limit passes too.
    circuit?.abandon(probe);
    if (await sendCopy(ctx, lane.overflow, event.id, m.body, 0)) {
      const attempt = { at: startedAt, lane: lane.name, outcome: 'timed_out', reason: outcome.reason, nextTryAt: ctx.clock.now() } as const;
      await progress.write(progress.attemptRows(attempt, 'retrying'));
      ctx.metrics.count('dispatch_slow_lane');
      log.warn('agent runtime did not answer within the main lane limit; event moved to the slow lane', {
        limitMs: lane.postTimeoutMs,
      });
      return 'done';
    }
  } else {
    circuit?.record({ failed: true, retryAfterSeconds: outcome.retryAfterSeconds, probe });
  }
  const delay = lane.backoff(m.receiveCount, outcome.retryAfterSeconds);
  const failed = {
    at: startedAt,
    lane: lane.name,
    ...(outcome.status !== undefined ? { status: outcome.status } : {}),
    reason: outcome.reason,
  };
  const nextTryAt = ctx.clock.now() + delay * 1000;
  if (outcome.throttled && (await sendCopy(ctx, lane.queue, event.id, m.body, delay))) {
    await progress.write(progress.attemptRows({ ...failed, outcome: 'throttled', nextTryAt }, 'retrying'));
    ctx.metrics.count('dispatch_throttled');
    log.warn('agent runtime is throttling; event re-enqueued', { status: outcome.status, delaySeconds: delay });
    return 'done';
  }
  const last = isLastReceive(m.receiveCount);
  await progress.write(
    progress.attemptRows(
      { ...failed, outcome: outcome.timedOut ? 'timed_out' : 'failed', ...(last ? {} : { nextTryAt }) },
      last ? 'dead_lettered' : 'retrying',
    ),
  );
  ctx.metrics.count('dispatch_retry');
  log.warn('agent runtime did not take the event; will retry', {
    reason: outcome.reason,
    receiveCount: m.receiveCount,
    delaySeconds: delay,
  });
  // A last try has no next one: released at once, the queue's next receive dead-letters it
  // (SQS moves a message only on a receive), instead of after the backoff while its history
  // already says dead_lettered.
  await postpone(ctx, lane, m, last ? 0 : delay);
  return 'failed';
}

/**
 * The POST under the event's claim (dispatch-claim.ts): marked done with the history when
 * delivered, given back otherwise. A claim that cannot be taken (a store error) is not an
 * attempt: the circuit's probe, if this was one, is handed back.
 */
async function postClaimed(
  ctx: AppContext,
  a: { lane: Lane; event: TriggerEvent; url: string; progress: EventProgress; log: Logger },
  circuit: DispatchCircuit | undefined,
  probe: boolean,
): Promise<{ posted: ClaimRun<PostOutcome>; startedAt: number }> {
  let startedAt = ctx.clock.now();
  let posting = false;
  try {
    const posted = await withClaim(
      ctx,
      dispatchClaim(a.event.id, (e) => a.log.warn('could not release dispatch claim', { error: e })),
      async () => {
        posting = true;
        a.progress.readAhead();
        startedAt = ctx.clock.now();
        const outcome = await postEvent(ctx, a.url, a.event, { timeoutMs: a.lane.postTimeoutMs, deadline: a.lane.deadline });
        if (outcome.kind !== 'delivered') return giveBack<PostOutcome>(outcome);
        circuit?.record({ failed: false, probe });
        // One write for the done mark and the history.
        const attempt = { at: startedAt, lane: a.lane.name, outcome: 'delivered', status: outcome.status } as const;
        return finishWith<PostOutcome>(outcome, await a.progress.attemptRows(attempt, 'delivered'));
      },
    );
    return { posted, startedAt };
  } catch (e) {
    if (!posting) circuit?.abandon(probe);
    throw e;
  }
}
