import { pollOnce, type PollReport } from '../../shared/polling/poll-once';
import { appContext } from './deps';

/** Scheduled (every minute): one polling round for gists and new repositories. */
export const handler = async (): Promise<PollReport> => pollOnce(await appContext());
