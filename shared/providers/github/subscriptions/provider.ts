import { githubPollSources } from '../polling/github-poll-sources';
import { githubSweep } from '../sweep/app-hook';
import { checkGithubAllowList } from '../app/allow-list-reach';
import { githubOAuth } from '../oauth/definition';
import { checkGithubUserToken } from '../user-token';
import { identifyGithub } from '../oauth/identify';
import { githubRefresh } from '../oauth/refresh-rules';
import { revokeGithub } from '../oauth/revoke';
import { githubIntake } from '../intake/webhooks';
import type { ProviderContract } from '../../../ports/provider-contract';
import { githubHooks } from './github-hooks';

/** The code host behind the provider contract (shared/ports/provider-contract.ts). */
export const githubProvider: ProviderContract = {
  id: 'github',
  connectionKind: 'code-host',
  oauth: githubOAuth,
  identify: identifyGithub,
  refresh: githubRefresh,
  revoke: revokeGithub,
  intake: githubIntake,
  hooks: githubHooks,
  polling: { sources: githubPollSources },
  sweep: githubSweep,
  userToken: checkGithubUserToken,
  checkAllowList: checkGithubAllowList,
};
