import type { ClientFactory } from '../tools/tool-step';
import { createGitHubClient, githubApiBase, type GitHubClient } from './octokit';

/**
 * The code host's client for one connection: its token, its API base (enterprise servers
 * override GITHUB_API_URL), its own limiter key, and RATE_LIMIT_MAX_WAIT_SECONDS.
 */
export const githubClientFactory: ClientFactory<GitHubClient> = async (connection, ctx) =>
  createGitHubClient({
    token: await ctx.app.tokens.accessToken(connection),
    baseUrl: githubApiBase(connection, ctx.app.config),
    fetch: ctx.app.fetch,
    logger: ctx.logger,
    metrics: ctx.app.metrics,
    throttle: { id: connection.id, maxWaitSeconds: ctx.app.config.rateLimitMaxWaitSeconds },
  });
