import { githubTriggers } from '../triggers/catalog';
import { checkGithubAllowList } from '../app/allow-list-reach';
import { githubConnect } from '../app/connect-flow';
import { githubOAuth } from '../oauth/definition';
import { checkGithubUserToken } from '../user-token';
import { identifyGithub } from '../oauth/identify';
import { githubRefresh } from '../oauth/refresh-rules';
import { revokeGithub } from '../oauth/revoke';
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
  triggers: githubTriggers,
  hooks: githubHooks,
  // Polling and the sweep are read on first use: most functions never poll or sweep, and
  // their code (list reads, the App's JWT) stays out of those functions' cold start.
  polling: {
    sources: {
      plan: async (ctx) => (await import('../polling/github-poll-sources')).githubPollSources.plan(ctx),
      poll: async (ctx, connection, unit, batch) =>
        (await import('../polling/github-poll-sources')).githubPollSources.poll(ctx, connection, unit, batch),
    },
  },
  sweep: {
    sharedHooks: async (ctx) => (await import('../sweep/app-hook')).githubSweep.sharedHooks(ctx),
    endpointHook: async (ctx, connection, endpoint) =>
      (await import('../sweep/app-hook')).githubSweep.endpointHook(ctx, connection, endpoint),
  },
  userToken: checkGithubUserToken,
  checkAllowList: checkGithubAllowList,
  connect: githubConnect,
};
