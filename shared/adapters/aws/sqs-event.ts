import type { SQSBatchResponse, SQSEvent } from 'aws-lambda';
import type { InboundMessage } from '../../ports';
import { attemptsAttribute } from './sqs-queue';

/** Whether a Lambda event is an SQS event source's batch (a function that is also scheduled gets both). */
export const isSqsBatch = (event: unknown): event is SQSEvent => Array.isArray((event as Partial<SQSEvent> | undefined)?.Records);

/** An SQS event source's records as the queue port's messages: receive count, send time, tries carried, tenant group. */
export function inboundMessages(event: SQSEvent): InboundMessage[] {
  return event.Records.map((r) => ({
    messageId: r.messageId,
    body: r.body,
    receiptHandle: r.receiptHandle,
    receiveCount: Number(r.attributes.ApproximateReceiveCount) || 1,
    sentAt: Number(r.attributes.SentTimestamp) || undefined,
    attempts: Number(r.messageAttributes?.[attemptsAttribute]?.stringValue) || undefined,
    group: r.attributes.MessageGroupId,
  }));
}

/** The answer of a function with ReportBatchItemFailures: the messages for the queue to give again. */
export function batchFailures(failedMessageIds: readonly string[]): SQSBatchResponse {
  return { batchItemFailures: failedMessageIds.map((itemIdentifier) => ({ itemIdentifier })) };
}
