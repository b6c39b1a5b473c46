import { describe, expect, it } from 'vitest';
import { earliestSlot } from '../../shared/providers/contentsnare/sliding-window';
import { maxHonouredRetryAfterMs, retryAfterMs } from '../../shared/providers/contentsnare/retry-after';
import { githubHttpError, maxHonouredRetryAfterSeconds, retryAfterSeconds } from '../../shared/providers/github/github-errors';
import { providerRegistry } from '../../shared/wiring/providers';
import { requestToken, TokenEndpointError } from '../../shared/oauth/token-client';
import type { Fetch } from '../../shared/ports';

/**
 * Waits and lifetimes the outside names are capped where they are honoured: a 429's
 * Retry-After, the code host's rate-limit reset, and a token answer's lifetimes.
 */
const now = Date.parse('2026-11-26T12:00:00Z');

describe("the collection service's Retry-After", () => {
  it.each([
    ['999999999', 'seconds'],
    ['Fri, 31 Dec 9999 23:59:59 GMT', 'a date in year 9999'],
  ])('%s (%s) is honoured for at most the documented cap', (header) => {
    expect(maxHonouredRetryAfterMs).toBe(15 * 60 * 1000);
    expect(retryAfterMs(header, now)).toBe(maxHonouredRetryAfterMs);
  });

  it('a reasonable value is honoured as it is', () => {
    expect(retryAfterMs('7', now)).toBe(7000);
  });

  it('a block stored beyond the cap (before it existed) holds a slot back by the cap at most', () => {
    const policy = { limit: 20, windowMs: 10_000, marginMs: 500 };
    expect(earliestSlot({ grants: [], blockedUntil: now + 31 * 365 * 24 * 3600 * 1000 }, now, policy)).toBe(now + maxHonouredRetryAfterMs);
  });
});

describe("the code host's Retry-After and x-ratelimit-reset", () => {
  it.each([[{ 'retry-after': '999999999' }], [{ 'x-ratelimit-reset': '253402300799', 'x-ratelimit-remaining': '0' }]])(
    '%o asks for at most an hour (its rate-limit window)',
    (headers) => {
      expect(maxHonouredRetryAfterSeconds).toBe(3600);
      expect(retryAfterSeconds(headers, now)).toBe(3600);
      expect(githubHttpError(429, headers, {}, now).details).toMatchObject({ retryAfter: 3600 });
    },
  );
});

describe('token lifetimes', () => {
  const def = providerRegistry.contentsnare.oauth;
  const answering = (body: Record<string, unknown>): Fetch =>
    (async () => new Response(JSON.stringify(body), { status: 200, headers: { 'content-type': 'application/json' } })) as Fetch;
  const call = (body: Record<string, unknown>) =>
    requestToken(
      { fetch: answering(body), clock: { now: () => now } },
      def,
      'http://127.0.0.1:9/token',
      { clientId: 'c', clientSecret: 's' },
      {
        grant_type: 'refresh_token',
        refresh_token: 'rt',
      },
    );

  it.each([
    [{ expires_in: 1e308 }],
    [{ expires_in: '1e308' }],
    [{ expires_in: 10 * 366 * 24 * 3600 }],
    [{ refresh_token_expires_in: 1e308 }],
  ])('an implausible lifetime %o is a malformed token answer', async (lifetime) => {
    const e = await call({ access_token: 'a', refresh_token: 'r', ...lifetime }).catch((x: unknown) => x);
    expect(e).toBeInstanceOf(TokenEndpointError);
    expect(e).toMatchObject({ kind: 'rejected', oauthError: 'malformed_token_response' });
  });

  it("documented lifetimes pass: two hours, and the code host's six months for a refresh token", async () => {
    const answer = await call({ access_token: 'a', refresh_token: 'r', expires_in: 7200, refresh_token_expires_in: 15897600 });
    expect(answer.token.expiresAt).toBe(now + 7200 * 1000);
    expect(answer.token.refreshTokenExpiresAt).toBe(now + 15897600 * 1000);
  });
});
