import type { Logger, LogAttrs } from '../observability/logger';
import type { InboundMessage, OutgoingMessage, Queue } from '../ports';
import type { AppContext } from '../ports/app-context';
import type { Attempt, EventStatus } from '../store/event-history';
import type { EventProgress } from './event-progress';
import type { Lane } from './lane';
import { isLastReceive } from './redrive-policy';

/** What the queue is told of a message: deleted (`done`), or left for its next receive (`failed`, SQS `batchItemFailures`). */
export type MessageFate = 'done' | 'failed';

/** An attempt as a stage reports it; its `nextTryAt` is set where the message is settled. */
export type AttemptNote = Omit<Attempt, 'nextTryAt'>;

/** How a message ends. Every stage of dispatch ends with one of these or hands a value to the next. */
export type Settlement =
  /** Finished: the message is deleted; `history`, the status an event that made no POST ends in. */
  | { kind: 'done'; history?: EventStatus }
  /** Never to be delivered (a gate refused it): deleted, its history `dropped`, the reason logged. */
  | { kind: 'dropped'; reason: string; fields?: LogAttrs }
  /**
   * Tried again later as a delayed copy on `to` (the message itself is deleted, so the wait
   * uses up no receive and holds nothing in flight); when the copy cannot be sent, settled
   * as `otherwise`. `announce` counts and logs what happened, once it did.
   */
  | {
      kind: 'postponed';
      to: Queue;
      copy: OutgoingMessage;
      attempt?: AttemptNote;
      announce?: () => void;
      otherwise: Settlement;
    }
  /**
   * Tried again after `delaySeconds`: as a delayed copy carrying the count of tries when the
   * lane has a dead-letter queue (the last try is sent there), else in place (its visibility),
   * where the queue dead-letters it after its last receive. A failed POST's `attempt` on the
   * last receive is released at once: its history already says dead_lettered.
   */
  | { kind: 'failed'; reason: string; delaySeconds: number; attempt?: AttemptNote; announce?: () => void };

/** A stage's outcome: go on with `value`, or the message is settled. */
export type StageOutcome<T> = { kind: 'continue'; value: T } | Settlement;

export function proceed<T>(value: T): StageOutcome<T> {
  return { kind: 'continue', value };
}

/** SQS delays a message at most 15 minutes. */
const maxDelaySeconds = 900;

/** A wait as a queue takes a message's delay: whole seconds, 0 to 15 minutes. */
export function queueDelaySeconds(seconds: number): number {
  return Math.max(0, Math.min(maxDelaySeconds, Math.ceil(seconds)));
}

/**
 * The one place a message is settled: deleted, copied with a delay, postponed in place or
 * left for the dead-letter queue, with the event's history (`progress`, trigger events only)
 * written to say so. A message that fails on its last allowed receive is counted
 * `events_dead_lettered` (and logged) here, since the queue moves it to the dead-letter queue
 * without telling anyone.
 */
export async function settle(
  ctx: AppContext,
  lane: Lane,
  m: InboundMessage,
  s: Settlement,
  log: Logger,
  progress?: EventProgress,
): Promise<MessageFate> {
  switch (s.kind) {
    case 'done':
      if (s.history && progress) await progress.write(progress.statusRows(s.history));
      return 'done';
    case 'dropped':
      log.info(`${s.reason}; event dropped`, s.fields);
      if (progress) await progress.write(progress.statusRows('dropped'));
      return 'done';
    case 'postponed': {
      const delaySeconds = queueDelaySeconds(s.copy.delaySeconds ?? 0);
      const nextTryAt = ctx.clock.now() + delaySeconds * 1000;
      if (!(await sendCopy(s.to, { ...s.copy, delaySeconds }, log))) return settle(ctx, lane, m, s.otherwise, log, progress);
      if (s.attempt && progress) await progress.write(progress.attemptRows({ ...s.attempt, nextTryAt }, 'retrying'));
      s.announce?.();
      return 'done';
    }
    case 'failed':
      return fail(ctx, lane, m, s, log, progress);
  }
}

async function fail(
  ctx: AppContext,
  lane: Lane,
  m: InboundMessage,
  s: Extract<Settlement, { kind: 'failed' }>,
  log: Logger,
  progress: EventProgress | undefined,
): Promise<MessageFate> {
  const last = isLastReceive(m.receiveCount);
  if (s.attempt && progress) {
    const nextTryAt = ctx.clock.now() + s.delaySeconds * 1000;
    const attempt = { ...s.attempt, ...(last ? {} : { nextTryAt }) };
    await progress.write(progress.attemptRows(attempt, last ? 'dead_lettered' : 'retrying'));
  }
  s.announce?.();
  if (s.delaySeconds > 0 && (await waitOutOfFlight(lane, m, s, last, log))) {
    if (last) deadLettered(ctx, lane, m, s, log);
    return 'done';
  }
  // A last try has no next one: released at once, the queue's next receive dead-letters it
  // (SQS moves a message only on a receive), instead of after the backoff while its history
  // already says dead_lettered.
  await postponeMessage(ctx, lane, m, s.attempt && last ? 0 : s.delaySeconds);
  if (last) deadLettered(ctx, lane, m, s, log);
  return 'failed';
}

/**
 * A retry that waits as a delayed copy carrying its count of tries, the message itself deleted,
 * so the wait holds nothing in flight (SQS's 120,000 in-flight messages a queue are shared by
 * every tenant); after the last try the message goes to the dead-letter queue itself. False
 * when the lane has no dead-letter queue or the copy was not taken: the message then waits in
 * place, as the queue's own receive count can dead-letter it.
 */
async function waitOutOfFlight(
  lane: Lane,
  m: InboundMessage,
  s: Extract<Settlement, { kind: 'failed' }>,
  last: boolean,
  log: Logger,
): Promise<boolean> {
  if (!lane.deadLetters) return false;
  const group = m.group === undefined ? {} : { group: m.group };
  if (last) return sendCopy(lane.deadLetters, { id: m.messageId, body: m.body, ...group }, log);
  const delaySeconds = Math.max(1, Math.min(maxDelaySeconds, Math.ceil(s.delaySeconds)));
  return sendCopy(lane.queue, { id: m.messageId, body: m.body, ...group, delaySeconds, attempts: m.receiveCount }, log);
}

function deadLettered(ctx: AppContext, lane: Lane, m: InboundMessage, s: { reason: string }, log: Logger): void {
  ctx.metrics.count('events_dead_lettered');
  log.error('message failed on its last receive; it goes to the dead-letter queue', {
    messageId: m.messageId,
    receiveCount: m.receiveCount,
    lane: lane.name,
    reason: s.reason,
  });
}

/** Postpones a message on its lane (a failure to do so is logged: the message comes back with its visibility). */
export function postponeMessage(ctx: Pick<AppContext, 'logger'>, lane: Lane, m: InboundMessage, seconds: number): Promise<void> {
  return lane.consumer.changeVisibility(m.receiptHandle, seconds).catch((e: unknown) => {
    ctx.logger.warn('could not postpone message', { messageId: m.messageId, error: e });
  });
}

/** Sends a delayed copy; false when the queue did not take it. */
async function sendCopy(queue: Queue, copy: OutgoingMessage, log: Logger): Promise<boolean> {
  try {
    await queue.sendBatch([copy]);
    return true;
  } catch (e) {
    log.warn('could not re-enqueue the message; retrying in place', { copyId: copy.id, error: e });
    return false;
  }
}
