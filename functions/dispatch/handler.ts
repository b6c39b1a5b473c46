import type { SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { batchFailures, inboundMessages } from '../../shared/adapters/aws/sqs-event';
import { dispatchBatch } from '../../shared/dispatch/dispatch-batch';
import { singleLane } from '../../shared/dispatch/lane';
import { awsLanes, laneOfSource } from '../../shared/dispatch/lanes';
import { withObservability } from '../../shared/observability/lambda-wrapper';
import { appContext, circuits, deadLetterQueue, observability, providerWork, slowQueue, slowQueueUrl } from './deps';

/**
 * SQS batch -> dispatchBatch on the lane its queue is (main or slow) -> partial batch
 * failures (both event sources have ReportBatchItemFailures).
 */
export const handler = withObservability(observability, async (event: SQSEvent): Promise<SQSBatchResponse> => {
  const ctx = await appContext();
  const messages = inboundMessages(event);
  // One event source per invocation: every record of a batch comes from the same queue.
  // The role's queue is typed to postpone messages (LambdaQueue): no run-time check of its kind.
  const lanes = slowQueue ? awsLanes(ctx.queue, slowQueue, deadLetterQueue) : undefined;
  const lane = lanes ? lanes[laneOfSource(event.Records[0]?.eventSourceARN, slowQueueUrl)] : singleLane(ctx, ctx.queue, deadLetterQueue);
  const { failedMessageIds } = await dispatchBatch(ctx, messages, lane.consumer, { work: providerWork, lane, circuits });
  return batchFailures(failedMessageIds);
});
