import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createGitHubClient, mapGitHubError, type GitHubThrottleOptions } from '../../shared/providers/github/octokit';
import { silentLogger } from '../../shared/observability/logger';
import { startFakeHttp, type FakeResponse, type FakeServer } from '../helpers/fake-http';

// RELIABILITY.md 31. Waits are scaled down (msPerSecond) so the file stays fast; the
// decisions (wait or give up, retry or not) are the production ones.
describe('code host rate limits and retries', () => {
  let host: FakeServer;
  let n = 0;
  const client = (throttle: GitHubThrottleOptions = {}) =>
    createGitHubClient({
      token: 'ghp_rateLimitTestToken00000000000000000000',
      baseUrl: host.url,
      fetch: globalThis.fetch,
      logger: silentLogger,
      throttle: { id: `t${n++}`, maxWaitSeconds: 30, msPerSecond: 10, ...throttle },
    });
  /** Answers `first` for the first `times` requests, then 200. */
  const failing = (first: FakeResponse, times = 1) => {
    let calls = 0;
    host.setHandler(() => (calls++ < times ? first : { body: { ok: true } }));
  };
  const outcome = async (p: Promise<unknown>) => {
    try {
      await p;
      return { ok: true as const };
    } catch (e) {
      return { ok: false as const, error: mapGitHubError(e, Date.now()) };
    }
  };

  beforeAll(async () => {
    host = await startFakeHttp();
  });
  afterAll(() => host.close());
  beforeEach(() => {
    host.requests.length = 0;
  });

  it('waits for the reset when the primary limit is exhausted (403, remaining 0), then succeeds', async () => {
    const reset = String(Math.floor(Date.now() / 1000) + 1);
    failing({
      status: 403,
      headers: { 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': reset },
      body: { message: 'API rate limit exceeded for user.' },
    });
    const res = await client().request('GET /repos/{owner}/{repo}', { owner: 'o', repo: 'r' });
    expect(res.data).toEqual({ ok: true });
    expect(host.requests).toHaveLength(2);
  });

  it('waits for the reset on a 429 with remaining 0 as well', async () => {
    const reset = String(Math.floor(Date.now() / 1000) + 2);
    failing({
      status: 429,
      headers: { 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': reset },
      body: { message: 'API rate limit exceeded' },
    });
    expect((await client().request('GET /repos/{owner}/{repo}', { owner: 'o', repo: 'r' })).data).toEqual({ ok: true });
    expect(host.requests).toHaveLength(2);
  });

  it('gives up at once with rate_limited and retryAfter when the reset is beyond the wait limit', async () => {
    const reset = String(Math.floor(Date.now() / 1000) + 600);
    failing({
      status: 403,
      headers: { 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': reset },
      body: { message: 'API rate limit exceeded' },
    });
    const r = await outcome(client().request('GET /repos/{owner}/{repo}', { owner: 'o', repo: 'r' }));
    expect(r.ok).toBe(false);
    expect(r.error).toMatchObject({ code: 'rate_limited', details: { status: 403 } });
    expect(r.error?.details?.retryAfter).toBeGreaterThan(500);
    expect(host.requests).toHaveLength(1);
  });

  it('retries a secondary limit after its retry-after', async () => {
    failing({
      status: 403,
      headers: { 'retry-after': '2' },
      body: { message: 'You have exceeded a secondary rate limit. Please wait a few minutes before you try again.' },
    });
    // A read: the plugin spaces writes that notify people 3 s apart, which would only slow the test.
    expect((await client().request('GET /repos/{owner}/{repo}', { owner: 'o', repo: 'r' })).data).toEqual({ ok: true });
    expect(host.requests).toHaveLength(2);
  });

  it('waits at least 60 s for a secondary limit without retry-after, then longer each time', async () => {
    failing({ status: 403, body: { message: 'You have exceeded a secondary rate limit.' } }, 2);
    // 60 + 120 seconds fit within a wait limit of 1000; they are waited on the injected sleep, in full and at once.
    const sleeps: number[] = [];
    const sleep = async (ms: number) => void sleeps.push(ms);
    expect(
      (await client({ maxWaitSeconds: 1000, msPerSecond: 1000, sleep }).request('GET /repos/{owner}/{repo}', { owner: 'o', repo: 'r' }))
        .data,
    ).toEqual({
      ok: true,
    });
    expect(host.requests).toHaveLength(3);
    expect(sleeps).toEqual([60_000, 120_000]);
    host.requests.length = 0;
    // The default wait limit (30 s) is below the 60 s floor: give up with rate_limited.
    failing({ status: 403, body: { message: 'You have exceeded a secondary rate limit.' } });
    const r = await outcome(client().request('GET /repos/{owner}/{repo}', { owner: 'o', repo: 'r' }));
    expect(r.error).toMatchObject({ code: 'rate_limited', details: { retryAfter: 60 } });
    expect(host.requests).toHaveLength(1);
  });

  it('answers a permission 403 with forbidden and does not retry it', async () => {
    failing(
      {
        status: 403,
        headers: { 'x-accepted-github-permissions': 'contents=write' },
        body: { message: 'Resource not accessible by personal access token' },
      },
      5,
    );
    const r = await outcome(client().request('GET /repos/{owner}/{repo}', { owner: 'o', repo: 'r' }));
    expect(r.error).toMatchObject({ code: 'forbidden', details: { status: 403, acceptedPermissions: 'contents=write' } });
    expect(host.requests).toHaveLength(1);
  });

  it('never retries a write that failed with a 5xx (it may have happened)', async () => {
    failing({ status: 500, body: { message: 'Server Error' } }, 5);
    const r = await outcome(client().request('POST /repos/{owner}/{repo}/issues', { owner: 'o', repo: 'r', title: 't' }));
    expect(r.error).toMatchObject({ code: 'upstream_error', details: { status: 500 } });
    expect(host.requests).toHaveLength(1);
    expect(host.requests[0]?.method).toBe('POST');
  });

  it('retries a read that failed with a 5xx', async () => {
    failing({ status: 502, body: { message: 'Bad gateway' } });
    expect((await client().request('GET /repos/{owner}/{repo}', { owner: 'o', repo: 'r' })).data).toEqual({ ok: true });
    expect(host.requests).toHaveLength(2);
    expect(host.requests.every((r) => r.method === 'GET')).toBe(true);
  });

  it('does not retry a 401 and maps it to reconnect_required', async () => {
    failing({ status: 401, body: { message: 'Bad credentials' } }, 5);
    const r = await outcome(client().request('GET /user'));
    expect(r.error).toMatchObject({ code: 'reconnect_required' });
    expect(host.requests).toHaveLength(1);
  });
});
