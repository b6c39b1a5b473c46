import type { SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { sweepOnce, type SweepReport } from '../../shared/sweep/sweep-once';
import { planSweepRound, type SweepPlanReport } from '../../shared/sweep/sweep-plan';
import { sweepWorkItems } from '../../shared/sweep/sweep-work';
import { withObservability } from '../../shared/observability/lambda-wrapper';
import { appContext, observability, sweepWorkQueue } from './deps';

const isWork = (event: unknown): event is SQSEvent => Array.isArray((event as Partial<SQSEvent> | undefined)?.Records);

/**
 * Scheduled (every 5 minutes): plans a sweep round onto the work queue, one item per hook.
 * From the work queue's event source: walks each item's hook, asks the code host to redeliver
 * what failed, and answers the failed items (ReportBatchItemFailures), for the queue to try again.
 */
export const handler = withObservability(
  observability,
  async (event: unknown): Promise<SQSBatchResponse | SweepPlanReport | SweepReport> => {
    const ctx = await appContext();
    if (isWork(event)) {
      const messages = event.Records.map((r) => ({
        messageId: r.messageId,
        body: r.body,
        receiptHandle: r.receiptHandle,
        receiveCount: Number(r.attributes.ApproximateReceiveCount) || 1,
      }));
      const { failedMessageIds } = await sweepWorkItems(ctx, messages, sweepWorkQueue ? { continueOn: sweepWorkQueue } : {});
      return { batchItemFailures: failedMessageIds.map((itemIdentifier) => ({ itemIdentifier })) };
    }
    return sweepWorkQueue ? planSweepRound(ctx, sweepWorkQueue) : sweepOnce(ctx);
  },
);
