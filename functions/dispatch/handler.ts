import type { SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { dispatchBatch } from '../../shared/dispatch/dispatch-batch';
import type { ConsumerQueue, InboundMessage } from '../../shared/ports';
import { withObservability } from '../../shared/observability/lambda-wrapper';
import { appContext, role } from './deps';

function consumerOf(queue: unknown): ConsumerQueue {
  if (queue && typeof (queue as ConsumerQueue).changeVisibility === 'function') return queue as ConsumerQueue;
  throw new Error('The dispatch function needs a queue adapter that can change message visibility');
}

/** SQS batch -> dispatchBatch -> partial batch failures (the event source has ReportBatchItemFailures). */
export const handler = withObservability(role, async (event: SQSEvent): Promise<SQSBatchResponse> => {
  const ctx = await appContext();
  const messages: InboundMessage[] = event.Records.map((r) => ({
    messageId: r.messageId,
    body: r.body,
    receiptHandle: r.receiptHandle,
    receiveCount: Number(r.attributes.ApproximateReceiveCount) || 1,
    sentAt: Number(r.attributes.SentTimestamp) || undefined,
  }));
  const { failedMessageIds } = await dispatchBatch(ctx, messages, consumerOf(ctx.queue));
  return { batchItemFailures: failedMessageIds.map((itemIdentifier) => ({ itemIdentifier })) };
});
