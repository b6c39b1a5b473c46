import type { AppContext } from '../ports/app-context';
import type { ConsumerQueue, InboundMessage } from '../ports';
import { backoffSeconds } from './backoff';
import { claimEvent, markDone, releaseClaim } from './dispatch-claim';
import { eventIdOfPointer, fromQueueMessage, PoisonMessageError, type ReadEvent } from './event-message';
import { keys } from '../store/table-design';
import { postEvent } from './post-event';
import { runFollowUp } from './follow-up';
import { isLastReceive } from './redrive-policy';

export interface BatchResult {
  /** Messages to leave on the queue (SQS `batchItemFailures`); the others are done. */
  failedMessageIds: string[];
}

type Outcome = 'done' | 'failed';

/**
 * Delivers a batch of queued trigger events to the agent runtime, each independently:
 * - a message that can never be read (poison) is reported failed at once with no delay,
 *   so it reaches the dead-letter queue intact after the queue's last receive (RELIABILITY 17);
 * - a claim per event id makes two copies in flight deliver once (RELIABILITY 18);
 * - a non-2xx or network failure postpones the message with exponential backoff and
 *   reports it failed, so the queue dead-letters it after its last try;
 * - throttling (429, or 503 with Retry-After) re-enqueues a delayed copy instead, so
 *   throttling alone never dead-letters an event (RELIABILITY 19).
 * A message that fails on its last allowed receive is counted `events_dead_lettered` (and
 * logged) here, since the queue moves it to the dead-letter queue without telling anyone.
 */
export async function dispatchBatch(ctx: AppContext, messages: readonly InboundMessage[], consumer: ConsumerQueue): Promise<BatchResult> {
  const outcomes = await Promise.all(
    messages.map((m) =>
      dispatchOne(ctx, m, consumer).catch(async (e: unknown) => {
        ctx.logger.error('dispatch failed unexpectedly', { messageId: m.messageId, error: e });
        await postpone(ctx, consumer, m, backoffSeconds(m.receiveCount));
        return 'failed' as Outcome;
      }),
    ),
  );
  const failed = messages.filter((_, i) => outcomes[i] === 'failed');
  for (const m of failed) {
    if (!isLastReceive(m.receiveCount)) continue;
    ctx.metrics.count('events_dead_lettered');
    ctx.logger.error('message failed on its last receive; the queue moves it to the dead-letter queue', {
      messageId: m.messageId,
      receiveCount: m.receiveCount,
    });
  }
  return { failedMessageIds: failed.map((m) => m.messageId) };
}

async function postpone(ctx: AppContext, consumer: ConsumerQueue, m: InboundMessage, seconds: number): Promise<void> {
  await consumer.changeVisibility(m.receiptHandle, seconds).catch((e: unknown) => {
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

async function dispatchOne(ctx: AppContext, m: InboundMessage, consumer: ConsumerQueue): Promise<Outcome> {
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
    await postpone(ctx, consumer, m, 0);
    return 'failed';
  }
  const { event } = read;
  const log = ctx.logger.child({
    eventId: event.id,
    trigger: event.trigger,
    subscriptionId: event.subscriptionId,
    deliveryId: event.deliveryId,
    messageId: m.messageId,
  });
  // Follow-ups (follow-up.ts): a read of the code host finishes, or drops, what the delivery could not settle.
  if ((await runFollowUp(ctx, event)) === 'handled') return 'done';
  const url = ctx.config.agentRuntimeUrl;
  if (url === undefined) {
    log.info(`trigger event ${event.trigger} for agent ${event.agentId} (AGENT_RUNTIME_URL is not set, so it is only logged)`, {
      triggerEvent: event,
    });
    ctx.metrics.count('dispatch_logged');
    return 'done';
  }
  const claim = await claimEvent(ctx.store, ctx.clock, event.id);
  if (claim.kind === 'done') {
    ctx.metrics.count('dispatch_duplicate');
    log.info('event already delivered; copy dropped');
    return 'done';
  }
  if (claim.kind === 'busy') {
    log.info('event is being delivered by another worker; checking back later');
    await postpone(ctx, consumer, m, claim.retryInSeconds);
    return 'failed';
  }
  const outcome = await postEvent(ctx, url, event);
  if (outcome.kind === 'delivered') {
    await markDone(ctx.store, ctx.clock, event.id);
    if (read.blobKey) await ctx.blobs.delete(read.blobKey).catch(() => undefined);
    ctx.metrics.count('dispatch_delivered');
    log.info('trigger event delivered', { status: outcome.status });
    return 'done';
  }
  await releaseClaim(ctx.store, ctx.clock, claim.held).catch((e: unknown) => log.warn('could not release dispatch claim', { error: e }));
  const delay = backoffSeconds(m.receiveCount, outcome.retryAfterSeconds);
  if (outcome.throttled) {
    try {
      // Named by the event, as every trigger-event message is (event-message.ts).
      await ctx.queue.sendBatch([{ id: event.id, body: m.body, delaySeconds: delay }]);
      ctx.metrics.count('dispatch_throttled');
      log.warn('agent runtime is throttling; event re-enqueued', { status: outcome.status, delaySeconds: delay });
      return 'done';
    } catch (e) {
      log.warn('could not re-enqueue throttled event; retrying in place', { error: e });
    }
  }
  ctx.metrics.count('dispatch_retry');
  log.warn('agent runtime did not take the event; will retry', {
    reason: outcome.reason,
    receiveCount: m.receiveCount,
    delaySeconds: delay,
  });
  await postpone(ctx, consumer, m, delay);
  return 'failed';
}
