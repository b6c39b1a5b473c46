import { AppError } from '../../domain/errors';
import { loadOnce } from '../../domain/load-once';
import { codeHostAccess } from './code-host-access';
import type { ClientFactory } from '../../tools/tool-step';
import { githubTimeoutMs } from './github-base';
import type { GitHubClient } from './octokit';
import { tokenRenewingFetch } from './token-renewing-fetch';

// Octokit is loaded on the first code-host step, not with the function (cold start).
const loadOctokit = loadOnce(() => import('./octokit'));

/**
 * The code host's client for one connection: its token and API base (enterprise servers
 * override GITHUB_API_URL) from codeHostAccess, which refuses a token outside its origin,
 * its own limiter key, RATE_LIMIT_MAX_WAIT_SECONDS and UPSTREAM_TIMEOUT_SECONDS. A 401 is
 * tried once more with the stored token when another worker has replaced it meanwhile.
 */
export const githubClientFactory: ClientFactory<GitHubClient> = async (connection, ctx) => {
  const access = await codeHostAccess(ctx, connection);
  const { createGitHubClient } = await loadOctokit();
  const client = createGitHubClient({
    token: access.token,
    baseUrl: access.baseUrl,
    fetch: tokenRenewingFetch(ctx.fetch, access),
    timeoutMs: githubTimeoutMs(ctx.config.upstreamTimeoutSeconds),
    logger: ctx.logger,
    metrics: ctx.metrics,
    throttle: { id: connection.id, maxWaitSeconds: ctx.config.rateLimitMaxWaitSeconds, sleep: ctx.sleep },
  });
  // Octokit hands a 3xx it did not follow (one leaving the base) back as a success with an
  // empty body; for a step that is no answer at all.
  client.hook.after('request', (response, options) => {
    // A step that asked for `redirect: 'manual'` reads the redirect itself (a job log's URL).
    if (options.request?.redirect === 'manual') return;
    if (response.status >= 300 && response.status < 400) throw redirectNotFollowed(response.status, response.headers.location);
  });
  return client;
};

function redirectNotFollowed(status: number, location: unknown): AppError {
  const where = typeof location === 'string' ? ` to ${location.slice(0, 200)}` : '';
  return new AppError(
    'upstream_error',
    `The code host answered ${status}, a redirect${where}, which is not followed outside the API base`,
    {
      status,
    },
  );
}
