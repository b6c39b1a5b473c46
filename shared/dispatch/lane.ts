import type { AppContext } from '../ports/app-context';
import type { ConsumerQueue, Queue } from '../ports';
import { backoffSeconds } from './backoff';

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
  /** This lane's queue: retried, throttled and deferred events are copied back onto it. */
  queue: Queue;
  /**
   * Where an event goes after its last try. With it, a failed try waits out of flight as a
   * delayed copy carrying its count of tries, and the last one is sent here: a copy's own
   * receive count starts over, so the queue's redrive would never see it. Without it (tests
   * of the stages alone), a failed message waits in place and the queue dead-letters it.
   */
  deadLetters?: Queue;
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

/**
 * The local runtime's one lane, and the default: every POST gets the full limit; failures
 * back off as delayed copies when there is a dead-letter queue to end in, in place otherwise.
 */
export function singleLane(ctx: Pick<AppContext, 'queue'>, consumer: ConsumerQueue, deadLetters?: Queue): Lane {
  return { name: 'main', consumer, queue: ctx.queue, postTimeoutMs, backoff: backoffSeconds, ...(deadLetters ? { deadLetters } : {}) };
}
