import { loadOnce } from '../domain/load-once';
import { codeHostAccess } from './code-host-access';
import type { ClientFactory } from '../tools/tool-step';
import { githubTimeoutMs } from './github-base';
import type { GitHubClient } from './octokit';

// Octokit is loaded on the first code-host step, not with the function (cold start).
const loadOctokit = loadOnce(() => import('./octokit'));

/**
 * The code host's client for one connection: its token and API base (enterprise servers
 * override GITHUB_API_URL) from codeHostAccess, which refuses a token outside its origin,
 * its own limiter key, RATE_LIMIT_MAX_WAIT_SECONDS and UPSTREAM_TIMEOUT_SECONDS.
 */
export const githubClientFactory: ClientFactory<GitHubClient> = async (connection, ctx) => {
  const access = await codeHostAccess(ctx, connection);
  const { createGitHubClient } = await loadOctokit();
  return createGitHubClient({
    token: access.token,
    baseUrl: access.baseUrl,
    fetch: ctx.fetch,
    timeoutMs: githubTimeoutMs(ctx.config.upstreamTimeoutSeconds),
    logger: ctx.logger,
    metrics: ctx.metrics,
    throttle: { id: connection.id, maxWaitSeconds: ctx.config.rateLimitMaxWaitSeconds, sleep: ctx.sleep },
  });
};
