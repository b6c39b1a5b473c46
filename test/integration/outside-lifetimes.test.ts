import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ContentSnareRateLimiter } from '../../shared/providers/contentsnare/rate-limiter';
import { maxHonouredRetryAfterMs } from '../../shared/providers/contentsnare/retry-after';
import { RateBucketStore } from '../../shared/providers/contentsnare/rate-bucket';
import { noMetrics } from '../../shared/observability/metrics';
import { secretNames, type Connection } from '../../shared/domain/model';
import { ConnectionRepo } from '../../shared/store/connection-repo';
import { readStoredToken, writeStoredToken } from '../../shared/store/stored-token';
import { testStore, TestClock } from '../helpers/dynamo';
import { oauthTestContext, type OAuthTestContext } from '../helpers/oauth-test-context';

/**
 * Waits and lifetimes named by the outside never outlast their caps, and a token answer
 * with an implausible lifetime is refused before anything is written.
 */
describe("a 429's Retry-After of 31 years", () => {
  it('blocks the account, in the table, for the cap at most: a later worker waits no longer', async () => {
    const clock = new TestClock();
    const { store } = await testStore(clock);
    const limiter = () => new ContentSnareRateLimiter({ store, clock, maxWaitMs: 20 * 60 * 1000, sleep: clock.sleep });
    const asked = clock.now() + 999_999_999 * 1000;
    await limiter().block('conn_429', asked);

    const row = await new RateBucketStore(store, clock, clock.sleep, Math.random, noMetrics).read('conn_429#write');
    expect(row?.state.blockedUntil).toBe(clock.now() + maxHonouredRetryAfterMs);

    // Another worker (a restart) reads the same row and sends once the cap has passed.
    const start = clock.now();
    await limiter().acquire('conn_429', 'write');
    expect(clock.now() - start).toBeLessThanOrEqual(maxHonouredRetryAfterMs);
  });
});

describe('a refresh answered with an implausible lifetime', () => {
  let t: OAuthTestContext;
  beforeAll(async () => {
    t = await oauthTestContext();
  });
  afterAll(async () => {
    await t.stop();
  });

  async function expiredConnection(): Promise<{ connection: Connection; refresh: string }> {
    const refresh = t.fake.issueRefreshToken();
    const expiresAt = t.clock.now() - 1000;
    const connection = await t.connect({
      provider: 'contentsnare',
      authMethod: 'oauth',
      accountLogin: 'Agency',
      tokenExpiresAt: expiresAt,
    });
    await writeStoredToken(t.ctx.secrets, connection, { accessToken: 'old-access', refreshToken: refresh, expiresAt });
    return { connection, refresh };
  }

  it('expires_in 1e308 is a malformed token answer: nothing is written, the connection stays readable and connected', async () => {
    const { connection, refresh } = await expiredConnection();
    const before = t.fake.behaviour.expiresIn;
    t.fake.behaviour.expiresIn = 1e308;
    try {
      const e = await t.ctx.tokens.accessToken(connection).catch((x: unknown) => x);
      expect(e).toMatchObject({ code: 'upstream_error', details: { oauthError: 'malformed_token_response' } });
    } finally {
      t.fake.behaviour.expiresIn = before;
    }
    const stored = await readStoredToken(t.ctx.secrets, connection);
    expect(stored).toMatchObject({ accessToken: 'old-access', refreshToken: refresh });
    expect((await new ConnectionRepo(t.ctx.store).get(connection.id))?.status).toBe('connected');
  });

  it('a stored token that cannot be read makes its connection say reconnect_required, not a 500 while it says connected', async () => {
    const { connection } = await expiredConnection();
    // What an expiry of Infinity became once written as JSON.
    await t.ctx.secrets.put(secretNames.connectionToken(connection), JSON.stringify({ accessToken: 'a', expiresAt: null }));
    const e = await t.ctx.tokens.accessToken(connection).catch((x: unknown) => x);
    expect(e).toMatchObject({ code: 'reconnect_required' });
    const after = await new ConnectionRepo(t.ctx.store).get(connection.id);
    expect(after).toMatchObject({ status: 'reconnect_required', statusReason: expect.stringContaining('stored token') });
  });

  it('a token that could not be read back is never written', async () => {
    const { connection } = await expiredConnection();
    const e = await writeStoredToken(t.ctx.secrets, connection, { accessToken: 'a', expiresAt: Number.POSITIVE_INFINITY }).catch(
      (x: unknown) => x,
    );
    expect(e).toMatchObject({ code: 'internal' });
    expect(await readStoredToken(t.ctx.secrets, connection)).toMatchObject({ accessToken: 'old-access' });
  });
});
