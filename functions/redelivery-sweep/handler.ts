import type { SQSBatchResponse } from 'aws-lambda';
import { batchFailures, inboundMessages, isSqsBatch } from '../../shared/adapters/aws/sqs-event';
import { sweepOnce, type SweepReport } from '../../shared/sweep/sweep-once';
import { planSweepRound, type SweepPlanReport } from '../../shared/sweep/sweep-plan';
import { sweepWorkItems } from '../../shared/sweep/sweep-work';
import { withObservability } from '../../shared/observability/lambda-wrapper';
import { appContext, observability, sweepWorkQueue } from './deps';

/**
 * Scheduled (every 5 minutes): plans a sweep round onto the work queue, one item per hook.
 * From the work queue's event source: walks each item's hook, asks the code host to redeliver
 * what failed, and answers the failed items (ReportBatchItemFailures), for the queue to try again.
 */
export const handler = withObservability(
  observability,
  async (event: unknown): Promise<SQSBatchResponse | SweepPlanReport | SweepReport> => {
    const ctx = await appContext();
    if (isSqsBatch(event)) {
      const messages = inboundMessages(event);
      const { failedMessageIds } = await sweepWorkItems(ctx, messages, sweepWorkQueue ? { continueOn: sweepWorkQueue } : {});
      return batchFailures(failedMessageIds);
    }
    return sweepWorkQueue ? planSweepRound(ctx, sweepWorkQueue) : sweepOnce(ctx);
  },
);
