import { SqsQueue, createSqsClient, type SqsSender } from '../adapters/aws/sqs-queue';

/** The dispatch queue adapter (SQS) for `buildAwsCoreContext`; only functions that enqueue or consume import it. */
export function sqsQueue(client?: SqsSender): (queueUrl: string) => SqsQueue {
  return (queueUrl) => new SqsQueue(client ?? createSqsClient(), queueUrl);
}
