import { sweepOnce, type SweepReport } from '../../shared/sweep/sweep-once';
import { withObservability } from '../../shared/observability/lambda-wrapper';
import { appContext, observability } from './deps';

/** Scheduled: asks the code host to redeliver recent deliveries that failed. */
export const handler = withObservability(observability, async (): Promise<SweepReport> => sweepOnce(await appContext()));
