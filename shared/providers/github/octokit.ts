import { Octokit } from '@octokit/core';
import { retry } from '@octokit/plugin-retry';
import { throttling } from '@octokit/plugin-throttling';
import { defaultGitHubTimeoutMs, githubUserAgent } from './github-base';
import { isWithinBase } from '../../http/safe-endpoint';
import { sameOriginFetch } from '../../http/same-origin-fetch';
import { timedFetch } from '../../http/timed-fetch';
import type { Logger } from '../../observability/logger';
import type { Metrics } from '../../observability/metrics';
import { realSleep, type Fetch, type Sleep } from '../../ports';

export { mapGitHubError } from './github-errors';

/** The code-host REST client every step and the webhook registration use. */
export const GitHubOctokit = Octokit.plugin(throttling, retry);
export type GitHubClient = InstanceType<typeof GitHubOctokit>;

export { githubApiBase, githubUserAgent, defaultGitHubTimeoutMs, githubTimeoutMs } from './github-base';

export interface GitHubThrottleOptions {
  /** Longest wait (seconds) for a rate limit before giving up with `rate_limited`: RATE_LIMIT_MAX_WAIT_SECONDS. */
  maxWaitSeconds?: number;
  /** Key of the per-account limiter (write spacing, search pacing): the connection id. */
  id?: string;
  /** How many times one request is retried after a rate limit. */
  rateLimitRetries?: number;
  /** How many times an idempotent request is retried after a 5xx or network failure. */
  serverErrorRetries?: number;
  /** Milliseconds per "second" of waiting: 1000 in production; tests shrink it to stay fast. */
  msPerSecond?: number;
  /** How rate-limit waits are waited (the context's sleep); the plugins' own delay is then zero. */
  sleep?: Sleep;
}

export interface GitHubClientOptions {
  token: string;
  baseUrl: string;
  fetch: Fetch;
  logger: Logger;
  /** Counts each rate-limit wait (`rate_limit_waits`, provider github) for the dashboard. */
  metrics?: Metrics;
  throttle?: GitHubThrottleOptions;
  /** Limit (ms) of one request, headers and body (default 15 000: UPSTREAM_TIMEOUT_SECONDS's default). */
  timeoutMs?: number;
}

const ghesRestSuffix = /\/api\/v3\/?$/;

/**
 * Requests pinned to the API base. Enterprise servers answer GraphQL beside their REST
 * base (`/api/graphql` next to `/api/v3`), where Octokit sends it; that one sibling is
 * allowed too, and nothing else.
 */
function pinnedFetch(fetchImpl: Fetch, baseUrl: string): Fetch {
  const rest = sameOriginFetch(fetchImpl, baseUrl);
  if (!ghesRestSuffix.test(baseUrl)) return rest;
  const graphqlUrl = baseUrl.replace(ghesRestSuffix, '/api/graphql');
  const graphqlPath = new URL(graphqlUrl).pathname;
  const graphql = sameOriginFetch(fetchImpl, graphqlUrl);
  return ((input, init) => {
    const url = new URL(typeof input === 'string' || input instanceof URL ? input.toString() : input.url);
    return url.pathname.replace(/\/+$/, '') === graphqlPath && isWithinBase(url, graphqlUrl) ? graphql(input, init) : rest(input, init);
  }) as Fetch;
}

const idempotent = new Set(['GET', 'HEAD']);
// Secondary limits without `retry-after`: the plugin's fallback, then doubled per retry.
const secondaryFallbackSeconds = 60;

/**
 * An Octokit for one account: the token applied, requests pinned to `baseUrl`'s origin
 * and path (redirects elsewhere are not followed), each request limited to `timeoutMs`, rate limits waited out when the wait
 * fits within `maxWaitSeconds` (else the call fails and maps to `rate_limited`), and
 * 5xx/network failures retried only for GET/HEAD: a write that failed with a 5xx may have
 * happened, so it is never retried blindly.
 */
export function createGitHubClient(options: GitHubClientOptions): GitHubClient {
  const { logger } = options;
  const t = options.throttle ?? {};
  const maxWait = t.maxWaitSeconds ?? 30;
  const rateLimitRetries = t.rateLimitRetries ?? 2;
  const msPerSecond = t.msPerSecond ?? 1000;
  const sleepSeconds = (seconds: number) => (t.sleep ?? realSleep)(seconds * msPerSecond);

  const client = new GitHubOctokit({
    auth: options.token,
    baseUrl: options.baseUrl.replace(/\/+$/, ''),
    userAgent: githubUserAgent,
    // A silent upstream fails with `timeout` (not retried: see timed-fetch.ts) instead of holding the step.
    request: {
      fetch: timedFetch(pinnedFetch(options.fetch, options.baseUrl), {
        timeoutMs: options.timeoutMs ?? defaultGitHubTimeoutMs,
        service: 'The code host',
      }),
    },
    // Octokit's info lines are one per request ("GET /x - 200 in 5ms"): debug for us.
    log: {
      debug: (m: string) => logger.debug(m),
      info: (m: string) => logger.debug(m),
      warn: (m: string) => logger.warn(m),
      error: (m: string) => logger.error(m),
    },
    throttle: {
      id: t.id ?? 'default',
      // The handlers below wait out a limit themselves, on the injected sleep: the plugin retries at once after.
      retryAfterBaseValue: 0,
      fallbackSecondaryRateRetryAfter: secondaryFallbackSeconds,
      onRateLimit: async (retryAfter, req, _octokit, retryCount) => {
        const retrying = retryCount < rateLimitRetries && retryAfter <= maxWait;
        logger.warn('code host rate limit reached', { method: req.method, url: req.url, retryAfter, retryCount, retrying });
        if (retrying) options.metrics?.count('rate_limit_waits', 1, { provider: 'github' });
        if (retrying) await sleepSeconds(retryAfter);
        return retrying;
      },
      onSecondaryRateLimit: async (retryAfter, req, _octokit, retryCount) => {
        // Without `retry-after` the plugin passes its 60 s fallback; wait 60 s, then 120, 240...
        const wait = retryAfter === secondaryFallbackSeconds ? secondaryFallbackSeconds * 2 ** retryCount : retryAfter;
        const retrying = retryCount < rateLimitRetries && wait <= maxWait;
        logger.warn('code host secondary rate limit reached', { method: req.method, url: req.url, retryAfter: wait, retryCount, retrying });
        if (retrying) options.metrics?.count('rate_limit_waits', 1, { provider: 'github' });
        if (retrying) await sleepSeconds(wait);
        return retrying;
      },
    },
    retry: {
      retries: t.serverErrorRetries ?? 2,
      retryAfterBaseValue: msPerSecond,
      // Rate limits belong to the throttling plugin, client errors are final.
      doNotRetry: [400, 401, 403, 404, 409, 410, 422, 429, 451],
    },
  });
  client.hook.before('request', (req) => {
    if (!idempotent.has(req.method.toUpperCase())) req.request = { ...req.request, retries: 0 };
  });
  return client;
}
