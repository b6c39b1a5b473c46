import * as z from 'zod';
import { endpointProblem, headerProblems, resolveEndpoint, sanitizeHeaders } from '../../http/safe-endpoint';
import { sameOriginFetch } from '../../http/same-origin-fetch';
import { timedFetch } from '../../http/timed-fetch';
import { assertApiCallInScope } from './api-call-scope';
import { guardManagedHooks, withoutManagedHooks } from '../../domain/managed-hooks';
import { codeHostHookPaths } from './managed-hooks';
import type { StepContext } from '../../tools/tool-step';
import { githubStep } from './tool-steps/common';
import { githubHttpError, isRateLimitAnswer, retryAfterSeconds } from './github-errors';
import { githubApiBase, githubTimeoutMs, githubUserAgent } from './github-base';
import type { GitHubClient } from './octokit';
import { pickHeaders, readResponseData } from '../../http/read-response';
import { codeHostAccess } from './code-host-access';
import { tokenRenewingFetch } from './token-renewing-fetch';

/**
 * `github.api_call`: any REST call the pre-built steps do not cover, with the connected
 * account's token applied. Plain fetch rather than Octokit, so that the URL guard
 * (safe-endpoint.ts) decides exactly what is sent and where (RELIABILITY.md 26-28).
 */

const input = () =>
  z
    .object({
      method: z.enum(['GET', 'POST', 'PUT', 'PATCH', 'DELETE']).describe('HTTP method'),
      endpoint: z
        .string()
        .superRefine((v, ctx) => {
          const problem = endpointProblem(v);
          if (problem) ctx.addIssue({ code: 'custom', message: problem });
        })
        .describe('Path relative to the code host API base, e.g. /repos/{owner}/{repo}/issues; absolute URLs are refused'),
      headers: z
        .record(z.string(), z.string())
        .optional()
        .superRefine((v, ctx) => {
          for (const p of headerProblems(v, '')) ctx.addIssue({ code: 'custom', message: p.message, path: [p.field.slice(1)] });
        })
        .describe(
          'Extra request headers; Authorization, Cookie, Host and framing headers cannot be set. Accept defaults to application/vnd.github+json',
        ),
      query: z
        .record(z.string(), z.union([z.string(), z.number(), z.boolean()]))
        .optional()
        .describe('Query parameters, merged into the endpoint'),
      body: z
        .union([z.record(z.string(), z.unknown()), z.array(z.unknown())])
        .optional()
        .describe('JSON request body'),
      dryRun: z.boolean().optional().describe('Describe the request instead of sending it'),
    })
    .superRefine((v, ctx) => {
      if (v.method === 'GET' && v.body !== undefined)
        ctx.addIssue({ code: 'custom', path: ['body'], message: 'a GET request cannot carry a body; use query' });
    });

type Input = z.output<ReturnType<typeof input>>;

const maxResponseBytes = 5 * 1024 * 1024;
const maxRateLimitRetries = 2;
/** Response headers worth passing on; nothing that could carry a credential. */
const safeResponseHeaders = [
  'content-type',
  'etag',
  'last-modified',
  'link',
  'location',
  'retry-after',
  'x-ratelimit-limit',
  'x-ratelimit-remaining',
  'x-ratelimit-reset',
  'x-ratelimit-used',
  'x-ratelimit-resource',
  'x-github-request-id',
  'x-github-api-version-selected',
  'x-accepted-github-permissions',
  'x-accepted-oauth-scopes',
  'x-oauth-scopes',
];

async function run(args: Input, _client: GitHubClient, ctx: StepContext) {
  const base = githubApiBase(ctx.connection, ctx.config);
  const url = resolveEndpoint(base, args.endpoint, args.query);
  const relative = url.pathname.slice(new URL(base).pathname.replace(/\/+$/, '').length);
  // The allow-list is checked on the path exactly as it will be sent (api-call-scope.ts).
  assertApiCallInScope(ctx.connection, args.method, relative);
  // The product's own hooks are refused, even to a dry run; a listing leaves them out.
  const hooks = await guardManagedHooks(codeHostHookPaths, ctx.managedHookIds, args.method, relative);
  const headers: Record<string, string> = {
    accept: 'application/vnd.github+json',
    'x-github-api-version': '2022-11-28',
    ...sanitizeHeaders(args.headers),
    'user-agent': githubUserAgent,
  };
  const body = args.body === undefined ? undefined : JSON.stringify(args.body);
  if (body !== undefined) headers['content-type'] ??= 'application/json';
  if (args.dryRun) return { dryRun: true, request: { method: args.method, url: url.toString(), headers, body: args.body } };

  // The token comes from the one place that refuses to send it outside its origin.
  const access = await codeHostAccess(ctx, ctx.connection);
  // No redirect is followed (0 hops): a 3xx comes back as it is, and the caller may send the
  // Location path itself, through the same guard and allow-list. Every exchange has a time limit.
  // A 401 gets one more try with a token another worker stored meanwhile (code-host-access.ts).
  const send = timedFetch(sameOriginFetch(tokenRenewingFetch(ctx.fetch, access), base, 0), {
    timeoutMs: githubTimeoutMs(ctx.config.upstreamTimeoutSeconds),
    service: 'The code host',
    maxBytes: maxResponseBytes,
  });
  for (let attempt = 0; ; attempt++) {
    const res = await send(url, { method: args.method, headers: { ...headers, authorization: `Bearer ${access.token}` }, body });
    const responseHeaders = pickHeaders(res, safeResponseHeaders);
    const data = await readResponseData(res, { maxBytes: maxResponseBytes, service: 'the code host', json: 'when-declared' });
    if (res.status < 400) {
      const shown = hooks === 'list' && ctx.managedHookIds ? await withoutManagedHooks(data, ctx.managedHookIds) : data;
      return { status: res.status, headers: responseHeaders, data: shown };
    }
    const message = typeof (data as { message?: unknown })?.message === 'string' ? (data as { message: string }).message : '';
    if (isRateLimitAnswer(res.status, responseHeaders, message)) {
      // A rate-limited request was not carried out, so waiting and sending it again is safe even for writes.
      const wait = retryAfterSeconds(responseHeaders, ctx.clock.now()) ?? 60;
      if (attempt < maxRateLimitRetries && wait <= ctx.config.rateLimitMaxWaitSeconds) {
        ctx.logger.warn('code host rate limit reached; waiting', { retryAfter: wait, attempt });
        ctx.metrics.count('rate_limit_waits', 1, { provider: 'github' });
        await ctx.sleep(wait * 1000);
        continue;
      }
    }
    throw githubHttpError(res.status, responseHeaders, data, ctx.clock.now());
  }
}

export const apiCall = githubStep({
  id: 'github.api_call',
  title: 'API Call',
  toolset: 'context',
  description:
    "Call any code host REST endpoint with the connected account. The endpoint is a path under the API base URL (GITHUB_API_URL or the connection's enterprise base); the token is applied automatically and cannot be overridden. On a connection limited to repositories, only paths under /repos/{owner}/{repo} of a listed repository are sent (deny by default: search, user, organization, /repositories/{id} and GraphQL calls are refused as forbidden with details.reason outside_allow_list). The hooks this product registered for its triggers are refused (managed_hook) and left out of hook listings.",
  output: () =>
    z.object({
      status: z.number().int().describe('The HTTP status of the answer (2xx or 3xx; 4xx and 5xx answer ok:false)'),
      headers: z
        .record(z.string(), z.string())
        .optional()
        .describe('A safe subset: content-type, etag, link, location, rate-limit and request-id headers'),
      data: z.unknown().describe('The body: parsed JSON when declared as JSON, else text; null when empty'),
    }),
  permissions: {
    fineGrained: {},
    oauthScopes: [],
    note: 'Whatever the endpoint needs; the code host names it in x-accepted-github-permissions and x-accepted-oauth-scopes',
  },
  input,
  destructive: true,
  run,
});
