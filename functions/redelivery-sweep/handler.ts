import { sweepOnce, type SweepReport } from '../../shared/sweep/sweep-once';
import { appContext } from './deps';

/** Scheduled: asks the code host to redeliver recent deliveries that failed. */
export const handler = async (): Promise<SweepReport> => sweepOnce(await appContext());
