import type { SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { dispatchBatch } from '../../shared/dispatch/dispatch-batch';
import type { InboundMessage } from '../../shared/ports';
import { withObservability } from '../../shared/observability/lambda-wrapper';
import { appContext, observability } from './deps';

/** SQS batch -> dispatchBatch -> partial batch failures (the event source has ReportBatchItemFailures). */
export const handler = withObservability(observability, async (event: SQSEvent): Promise<SQSBatchResponse> => {
  const ctx = await appContext();
  const messages: InboundMessage[] = event.Records.map((r) => ({
    messageId: r.messageId,
    body: r.body,
    receiptHandle: r.receiptHandle,
    receiveCount: Number(r.attributes.ApproximateReceiveCount) || 1,
    sentAt: Number(r.attributes.SentTimestamp) || undefined,
  }));
  // The role's queue is typed to postpone messages (LambdaQueue): no run-time check of its kind.
  const { failedMessageIds } = await dispatchBatch(ctx, messages, ctx.queue);
  return { batchItemFailures: failedMessageIds.map((itemIdentifier) => ({ itemIdentifier })) };
});
