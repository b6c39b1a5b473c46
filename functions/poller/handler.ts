import type { SQSBatchResponse } from 'aws-lambda';
import { batchFailures, inboundMessages, isSqsBatch } from '../../shared/adapters/aws/sqs-event';
import { emptyReport, pollOnce, recoverMissed, type PollReport } from '../../shared/polling/poll-once';
import { planPollRound, type PlanReport } from '../../shared/polling/poll-plan';
import { pollWorkItems } from '../../shared/polling/poll-work';
import { withObservability } from '../../shared/observability/lambda-wrapper';
import { appContext, observability, pollWorkQueue } from './deps';

/**
 * Scheduled (every minute): plans a polling round onto the work queue and runs the
 * providers' recovery checks. From the work queue's event source: reads a batch of work
 * items and answers the failed ones (ReportBatchItemFailures), for the queue to try again.
 */
export const handler = withObservability(observability, async (event: unknown): Promise<SQSBatchResponse | PlanReport | PollReport> => {
  const ctx = await appContext();
  if (isSqsBatch(event)) {
    const messages = inboundMessages(event);
    const { failedMessageIds } = await pollWorkItems(ctx, messages);
    return batchFailures(failedMessageIds);
  }
  if (!pollWorkQueue) return pollOnce(ctx);
  const plan = await planPollRound(ctx, pollWorkQueue);
  const recovered = emptyReport([]);
  await recoverMissed(ctx, recovered);
  ctx.metrics.count('poll_announced', recovered.announced);
  return plan;
});
