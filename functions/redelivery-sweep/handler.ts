import { sweepOnce, type SweepReport } from '../../shared/sweep/sweep-once';
import { withObservability } from '../../shared/observability/lambda-wrapper';
import { appContext, role } from './deps';

/** Scheduled: asks the code host to redeliver recent deliveries that failed. */
export const handler = withObservability(role, async (): Promise<SweepReport> => sweepOnce(await appContext()));
