import type { ConsumerQueue, Queue } from '../ports';
import { backoffSeconds, slowLaneBackoffSeconds } from './backoff';
import { postTimeoutMs, type Lane } from './lane';

/**
 * How long a POST may go unanswered on the main lane (AWS) before its event moves to the slow
 * lane. A batch's invocation lasts as long as its slowest POST: with this limit instead of the
 * full 10 s, one slow answer holds its batch for 2 s at most, and the healthy events behind it
 * keep their pace. An agent runtime that acknowledges an event as soon as it has it answers
 * in milliseconds; see docs/reliability.md for one that does not.
 */
export const mainLanePostTimeoutMs = 2_000;

export type LaneQueue = Queue & ConsumerQueue;

/**
 * The two lanes of the Lambda consumer: the main queue, whose POSTs are cut at
 * `mainLanePostTimeoutMs` and whose unanswered events move to the slow queue; and the slow
 * queue, with the full 10 s and a backoff of its own. Both feed the same dead-letter queue.
 */
export function awsLanes(main: LaneQueue, slow: LaneQueue): { main: Lane; slow: Lane } {
  return {
    main: { name: 'main', consumer: main, queue: main, postTimeoutMs: mainLanePostTimeoutMs, overflow: slow, backoff: backoffSeconds },
    slow: { name: 'slow', consumer: slow, queue: slow, postTimeoutMs, backoff: slowLaneBackoffSeconds },
  };
}

/**
 * Which lane an SQS record comes from: the slow lane when its event source (a queue ARN,
 * `arn:aws:sqs:<region>:<account>:<name>`) names the slow queue's URL's queue
 * (`https://sqs.<region>.amazonaws.com/<account>/<name>`).
 */
export function laneOfSource(eventSourceArn: string | undefined, slowQueueUrl: string | undefined): 'main' | 'slow' {
  if (!eventSourceArn || !slowQueueUrl) return 'main';
  const queueName = eventSourceArn.split(':').at(-1);
  const account = eventSourceArn.split(':').at(-2);
  const [slowAccount, slowName] = new URL(slowQueueUrl).pathname.split('/').filter(Boolean).slice(-2);
  return queueName === slowName && account === slowAccount ? 'slow' : 'main';
}
