import type { TriggerEvent } from '../domain/model';
import type { Logger } from '../observability/logger';
import type { InboundMessage } from '../ports';
import type { AppContext } from '../ports/app-context';
import { keys } from '../store/table-design';
import { connectionTakesEvents } from './connection-gate';
import { deliveryGate, gateReason } from './delivery-gate';
import { eventIdOfPointer, fromQueueMessage, PoisonMessageError, type ReadEvent } from './event-message';
import type { EventProgress } from './event-progress';
import type { Lane } from './lane';
import type { FollowUpHandler } from './provider-work';
import { proceed, type Settlement, type StageOutcome } from './settlement';

/** A trigger event in hand: what every stage after the read works on. */
export interface EventInHand {
  ctx: AppContext;
  m: InboundMessage;
  lane: Lane;
  log: Logger;
  read: ReadEvent;
  event: TriggerEvent;
  /** Its history, written where the message is settled. */
  progress: EventProgress;
}

/**
 * The message read back into its trigger event (following a claim-check pointer). A message
 * that can never be read (poison) fails at once with no delay, so it reaches the dead-letter
 * queue intact after the queue's last receive (RELIABILITY 17); a copy of an event already
 * delivered, whose claim-check body went with it, is done.
 */
export async function readStage(ctx: AppContext, m: InboundMessage): Promise<StageOutcome<ReadEvent>> {
  try {
    return proceed(await fromQueueMessage(ctx, m.body));
  } catch (e) {
    if (!(e instanceof PoisonMessageError)) throw e;
    if (await copyOfDelivered(ctx, m.body)) {
      ctx.metrics.count('dispatch_duplicate');
      ctx.logger.info('copy of an event already delivered (its claim-check body is gone with it); dropped', { messageId: m.messageId });
      return { kind: 'done' };
    }
    ctx.metrics.count('dispatch_poison');
    ctx.logger.error('unreadable queue message; it goes to the dead-letter queue as it is', {
      messageId: m.messageId,
      receiveCount: m.receiveCount,
      problem: e.message,
    });
    return { kind: 'failed', reason: e.message, delaySeconds: 0 };
  }
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

/**
 * The gates read again at delivery time: a connection that no longer takes events (its App
 * installation deleted or suspended) stops its events whenever they were queued, and a replay
 * passes every gate its first delivery passed, read again now: it may be asked for days later,
 * after its subscription, connection or repository was taken away.
 */
export async function gateStage(a: EventInHand): Promise<Settlement | undefined> {
  const { ctx, event } = a;
  if (!(await connectionTakesEvents(ctx, event.connectionId))) {
    ctx.metrics.count('dispatch_connection_inactive');
    return { kind: 'dropped', reason: 'the connection no longer takes events (its App installation is deleted or suspended)' };
  }
  if (event.replayOf === undefined) return undefined;
  const refusal = await deliveryGate(ctx, event);
  if (refusal === undefined) return undefined;
  ctx.metrics.count('dispatch_replay_refused');
  return { kind: 'dropped', reason: `replay not delivered: ${gateReason(refusal)}`, fields: { refusal, replayOf: event.replayOf } };
}

/** The providers' follow-ups (provider-work.ts): the first that applies finishes, or drops, what the delivery could not settle. */
export async function followUpStage(a: EventInHand, followUps: readonly FollowUpHandler[]): Promise<Settlement | undefined> {
  const handler = followUps.find((f) => f.applies(a.event));
  if (!handler || (await handler.run(a.ctx, a.event)) === 'deliver') return undefined;
  return { kind: 'done', history: 'settled' };
}

/** Without an agent runtime (AGENT_RUNTIME_URL unset) an event is logged, not posted. */
export function logOnlyStage(a: EventInHand): StageOutcome<string> {
  const url = a.ctx.config.agentRuntimeUrl;
  if (url !== undefined) return proceed(url);
  a.log.info(`trigger event ${a.event.trigger} for agent ${a.event.agentId} (AGENT_RUNTIME_URL is not set, so it is only logged)`, {
    triggerEvent: a.event,
  });
  a.ctx.metrics.count('dispatch_logged');
  return { kind: 'done', history: 'logged' };
}
