import { loadOnce } from '../domain/load-once';
import type { LambdaQueue } from './aws-core-context';

const loadSqs = loadOnce(() => import('./aws-sqs'));

/**
 * The dispatch queue (SQS) for a function that sends to it rarely (the platform API's
 * replay): the SDK client is loaded on the first send, so the other routes' cold start does
 * not pay for it.
 */
export function sqsQueueOnFirstUse(): (queueUrl: string) => LambdaQueue {
  return (queueUrl) => {
    let queue: Promise<LambdaQueue> | undefined;
    const get = () => {
      queue ??= loadSqs().then(({ sqsQueue }) => sqsQueue()(queueUrl));
      return queue;
    };
    return {
      sendBatch: async (messages) => (await get()).sendBatch(messages),
      changeVisibility: async (receiptHandle, seconds) => (await get()).changeVisibility(receiptHandle, seconds),
    };
  };
}
