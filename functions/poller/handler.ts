import { pollOnce, type PollReport } from '../../shared/polling/poll-once';
import { withObservability } from '../../shared/observability/lambda-wrapper';
import { appContext, observability } from './deps';

/** Scheduled (every minute): one polling round for gists and new repositories. */
export const handler = withObservability(observability, async (): Promise<PollReport> => pollOnce(await appContext()));
