import type { ConsumerQueue, Queue } from '../ports';
import { backoffSeconds, slowLaneBackoffSeconds } from './backoff';
import { postTimeoutMs, type Lane } from './lane';

/**
 * How long a POST may go unanswered on the main lane (AWS) before its event moves to the slow
 * lane: the full limit. A POST cut any sooner is one the agent runtime may still be working
 * on, and its event's next try would reach the runtime a second time while the first is
 * running (a runtime that takes 3 s per event had every event posted twice under a 2 s cut).
 * A slow answer holds its batch's invocation instead, which the main lane's concurrency is
 * sized for (docs/reliability.md, "Throughput"); the events of the same batch are posted at
 * once all the same.
 */
export const mainLanePostTimeoutMs = postTimeoutMs;

export type LaneQueue = Queue & ConsumerQueue;

/**
 * Concurrent executions an event source needs for a load (the model of docs/reliability.md,
 * "Throughput"): a batch lasts as long as its slowest POST, so `ratePerSecond` events whose
 * slowest usual answer takes `answerSeconds` keep rate x answer / batch size executions busy;
 * half again covers the batches that wait to fill and the retries. At least 2, SQS's least.
 */
export function executionsFor(ratePerSecond: number, answerSeconds: number, batchSize: number): number {
  return Math.max(2, Math.ceil(((ratePerSecond * answerSeconds) / batchSize) * 1.5));
}

/**
 * The two lanes of the Lambda consumer: the main queue, whose events left unanswered for
 * `mainLanePostTimeoutMs` move to the slow queue (a delayed copy: their wait holds nothing in
 * flight); and the slow queue, with a backoff of its own. Both feed the same dead-letter queue:
 * the queues' redrive for a message that keeps failing as it is, and `deadLetters` for an event
 * out of tries (its retries are delayed copies, each with a receive count of its own).
 */
export function awsLanes(main: LaneQueue, slow: LaneQueue, deadLetters?: Queue): { main: Lane; slow: Lane } {
  const dlq = deadLetters ? { deadLetters } : {};
  return {
    main: {
      name: 'main',
      consumer: main,
      queue: main,
      postTimeoutMs: mainLanePostTimeoutMs,
      overflow: slow,
      backoff: backoffSeconds,
      ...dlq,
    },
    slow: { name: 'slow', consumer: slow, queue: slow, postTimeoutMs, backoff: slowLaneBackoffSeconds, ...dlq },
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
