import * as z from 'zod';
import { AppError } from '../../../domain/errors';
import { readBoundedJson } from '../../../http/bounded-body';
import { readTextWindow, type TextWindow } from '../../../http/bounded-window';
import { pickHeaders } from '../../../http/read-response';
import { sameOriginFetch } from '../../../http/same-origin-fetch';
import { UpstreamTimeoutError } from '../../../http/timed-fetch';
import type { StepContext } from '../../../tools/tool-step';
import { codeHostAccess } from '../code-host-access';
import { githubTimeoutMs, githubUserAgent } from '../github-base';
import { githubHttpError, isRateLimitAnswer, retryAfterSeconds } from '../github-errors';
import type { GitHubClient } from '../octokit';
import { tokenRenewingFetch } from '../token-renewing-fetch';
import { githubStep, needs, repositoryOf } from './common';
import { pullInput } from './pull-input';

/** The default window: a mid-sized pull request's whole diff, and a model's comfortable read. */
const defaultWindowBytes = 64 * 1024;
const maxWindowBytes = 1024 * 1024;
/** An error answer is a short JSON message. */
const maxErrorBytes = 64 * 1024;
const maxRateLimitRetries = 2;

const input = () =>
  z.strictObject({
    ...pullInput,
    offset: z
      .number()
      .int()
      .min(0)
      .default(0)
      .describe('Byte offset in the diff to start reading at: 0 for the start, then the next_offset of the previous answer'),
    max_bytes: z
      .number()
      .int()
      .min(1024)
      .max(maxWindowBytes)
      .default(defaultWindowBytes)
      .describe(`Largest window answered, in bytes (default ${defaultWindowBytes}, at most ${maxWindowBytes}); it ends at a line break`),
  });

type Input = z.output<ReturnType<typeof input>>;
type Exchange = { window: TextWindow } | { failed: { status: number; headers: Record<string, string>; data: unknown } };

/** The request's whole exchange, answer headers and the window of its body, within the step's time limit. */
async function withinTime<T>(timeoutMs: number, work: (signal: AbortSignal) => Promise<T>): Promise<T> {
  const timer = new AbortController();
  let handle: ReturnType<typeof setTimeout> | undefined;
  const expired = new Promise<never>((_, reject) => {
    handle = setTimeout(() => {
      timer.abort();
      reject(new UpstreamTimeoutError('The code host', timeoutMs));
    }, timeoutMs);
  });
  const running = work(timer.signal);
  try {
    return await Promise.race([running, expired]);
  } finally {
    clearTimeout(handle);
    running.catch(() => undefined);
    expired.catch(() => undefined);
  }
}

/**
 * One window of the diff. The answer is read from the stream, never whole: Octokit (and the
 * client's bounded fetch) buffer an answer, so the diff goes through a plain fetch with the
 * same guards: the connection's token from codeHostAccess, pinned to the API base with no
 * redirect followed, a time limit, and rate limits waited out within RATE_LIMIT_MAX_WAIT_SECONDS.
 */
async function readDiffWindow(args: Input, client: GitHubClient, ctx: StepContext): Promise<TextWindow> {
  const { owner, repo, pull_number } = args;
  const { url } = client.request.endpoint('GET /repos/{owner}/{repo}/pulls/{pull_number}', { owner, repo, pull_number });
  const access = await codeHostAccess(ctx, ctx.connection);
  const send = sameOriginFetch(tokenRenewingFetch(ctx.fetch, access), access.baseUrl, 0);
  const headers = {
    accept: 'application/vnd.github.diff',
    'x-github-api-version': '2022-11-28',
    'user-agent': githubUserAgent,
  };
  const timeoutMs = githubTimeoutMs(ctx.config.upstreamTimeoutSeconds);
  for (let attempt = 0; ; attempt++) {
    const outcome = await withinTime(timeoutMs, async (signal): Promise<Exchange> => {
      const res = await send(url, { method: 'GET', headers, signal });
      if (res.status === 200) return { window: await readTextWindow(res, { offset: args.offset, maxBytes: args.max_bytes }) };
      const data = await readBoundedJson(res, { maxBytes: maxErrorBytes, service: 'the code host' }).catch(() => undefined);
      return {
        failed: { status: res.status, headers: pickHeaders(res, ['retry-after', 'x-ratelimit-remaining', 'x-ratelimit-reset']), data },
      };
    });
    if ('window' in outcome) return outcome.window;
    const { status, headers: answered, data } = outcome.failed;
    const message = String((data as { message?: unknown } | undefined)?.message ?? '');
    // A rate-limited request was not carried out: waiting and asking again is safe.
    const wait = retryAfterSeconds(answered, ctx.clock.now()) ?? 60;
    if (isRateLimitAnswer(status, answered, message) && attempt < maxRateLimitRetries && wait <= ctx.config.rateLimitMaxWaitSeconds) {
      ctx.logger.warn('code host rate limit reached; waiting', { retryAfter: wait, attempt });
      ctx.metrics.count('rate_limit_waits', 1, { provider: 'github' });
      await ctx.sleep(wait * 1000);
      continue;
    }
    if (status < 400)
      throw new AppError('upstream_error', `The code host answered ${status}, which is no diff (a redirect is not followed)`, { status });
    throw githubHttpError(status, answered, data, ctx.clock.now());
  }
}

export const getPullRequestDiff = githubStep({
  id: 'github.get_pull_request_diff',
  title: 'Get Pull Request Diff',
  description:
    "Returns a pull request's unified diff (git diff format), one window at a time: up to max_bytes from `offset`, ending at a line break. When `next_offset` is not null there is more: call again with offset = next_offset. A large pull request is easier to read file by file with list_pull_request_files; the code host refuses the diff of a very large one (over 300 files or 20,000 lines), which list_pull_request_files still lists.",
  output: () =>
    z.object({
      pull_number: z.number().int(),
      diff: z.string().describe('This window of the diff'),
      offset: z.number().int().describe('Where this window starts, in bytes'),
      bytes: z.number().int().describe('Bytes in this window'),
      next_offset: z.number().int().nullable().describe('The offset of the next window; null when this window ends the diff'),
    }),
  permissions: needs({ pull_requests: 'read' }, 'repo'),
  toolset: 'pull_requests',
  input,
  repositoryOf,
  async run(args, client, ctx) {
    const window = await readDiffWindow(args, client, ctx);
    return { pull_number: args.pull_number, diff: window.text, offset: window.offset, bytes: window.bytes, next_offset: window.nextOffset };
  },
});
