import { codeHostAccess } from '../connections/code-host-access';
import type { ClientFactory } from '../tools/tool-step';
import { createGitHubClient, type GitHubClient } from './octokit';

/**
 * The code host's client for one connection: its token and API base (enterprise servers
 * override GITHUB_API_URL) from codeHostAccess, which refuses a token outside its origin,
 * its own limiter key, and RATE_LIMIT_MAX_WAIT_SECONDS.
 */
export const githubClientFactory: ClientFactory<GitHubClient> = async (connection, ctx) => {
  const access = await codeHostAccess(ctx.app, connection);
  return createGitHubClient({
    token: access.token,
    baseUrl: access.baseUrl,
    fetch: ctx.app.fetch,
    logger: ctx.logger,
    metrics: ctx.app.metrics,
    throttle: { id: connection.id, maxWaitSeconds: ctx.app.config.rateLimitMaxWaitSeconds },
  });
};
