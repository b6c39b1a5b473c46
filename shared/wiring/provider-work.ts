import type { ProviderWork } from '../dispatch/provider-work';
import { snareReadBackJobKind } from '../providers/contentsnare/dispatch/read-back-job';
import { appLifecycleJobKind } from '../providers/github/dispatch/app-lifecycle-job';
import { githubFollowUps } from '../providers/github/dispatch/follow-ups';

/** Every provider's jobs and follow-ups, as dispatch takes them: the one list, for the Lambda consumer and the local one alike. */
export const providerWork: ProviderWork = {
  jobs: [snareReadBackJobKind, appLifecycleJobKind],
  followUps: [...githubFollowUps],
};
