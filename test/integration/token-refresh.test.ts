import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConnectionRepo } from '../../shared/store/connection-repo';
import { readStoredToken, writeStoredToken } from '../../shared/store/stored-token';
import { AppError } from '../../shared/domain/errors';
import { secretNames, type Connection } from '../../shared/domain/model';
import type { SecretStore } from '../../shared/ports';
import { RefreshingTokenProvider } from '../../shared/oauth/refreshing-token-provider';
import { oauthTestContext, type OAuthTestContext } from '../helpers/oauth-test-context';

let t: OAuthTestContext;
beforeAll(async () => {
  t = await oauthTestContext();
});
afterAll(async () => {
  await t.stop();
});

const errorsSeen: string[] = [];
const minutes = (n: number) => n * 60 * 1000;

/** A collection-service connection whose stored token expires `expiresInMs` from now. */
async function contentSnareConnection(expiresInMs: number): Promise<{ connection: Connection; oldAccess: string; refresh: string }> {
  const refresh = t.fake.issueRefreshToken();
  const oldAccess = `old-access-${refresh.slice(-8)}`;
  const expiresAt = t.clock.now() + expiresInMs;
  const connection = await t.connect({ provider: 'contentsnare', authMethod: 'oauth', accountLogin: 'Agency', tokenExpiresAt: expiresAt });
  await writeStoredToken(t.ctx.secrets, connection, { accessToken: oldAccess, refreshToken: refresh, expiresAt });
  return { connection, oldAccess, refresh };
}

async function expectAppError(p: Promise<unknown>, code: string): Promise<AppError> {
  const e = await p.then(
    () => undefined,
    (err: unknown) => err,
  );
  errorsSeen.push(JSON.stringify(e), String((e as Error).message));
  expect(e).toBeInstanceOf(AppError);
  expect((e as AppError).code).toBe(code);
  return e as AppError;
}

describe('refresh of expiring tokens (RELIABILITY 24)', () => {
  it('twenty concurrent calls on an expired token make exactly one refresh, and all get the new token', async () => {
    const { connection, oldAccess, refresh } = await contentSnareConnection(-1000);
    const before = t.fake.refreshCalls().length;
    const tokens = await Promise.all(Array.from({ length: 20 }, () => t.ctx.tokens.accessToken(connection)));
    expect(t.fake.refreshCalls().length).toBe(before + 1);
    expect(t.fake.refreshCalls().at(-1)?.params).toMatchObject({
      grant_type: 'refresh_token',
      refresh_token: refresh,
      client_id: t.fake.clientId,
    });
    expect(new Set(tokens).size).toBe(1);
    expect(tokens[0]).not.toBe(oldAccess);
    expect(t.fake.validAccessTokens.has(tokens[0] ?? '')).toBe(true);
    const stored = await readStoredToken(t.ctx.secrets, connection);
    expect(stored?.accessToken).toBe(tokens[0]);
    // The provider rotated the refresh token: the new one is kept.
    expect(stored?.refreshToken).not.toBe(refresh);
    expect(stored?.refreshToken).toMatch(/^fake-rt-/);
    const after = await new ConnectionRepo(t.ctx.store).get(connection.id);
    expect(after?.tokenExpiresAt).toBe(t.clock.now() + 7200 * 1000);
    expect(after?.status).toBe('connected');
  });

  it('twenty concurrent calls split over two workers sharing the table make exactly one refresh', async () => {
    const { connection } = await contentSnareConnection(-1000);
    const workerA = t.refreshingProvider({ ownerId: 'container-a' });
    const workerB = t.refreshingProvider({ ownerId: 'container-b' });
    const before = t.fake.refreshCalls().length;
    const tokens = await Promise.all(Array.from({ length: 20 }, (_, i) => (i % 2 === 0 ? workerA : workerB).accessToken(connection)));
    expect(t.fake.refreshCalls().length).toBe(before + 1);
    expect(new Set(tokens).size).toBe(1);
    expect(tokens[0]).toBe((await readStoredToken(t.ctx.secrets, connection))?.accessToken);
  });

  it('a token with more than 5 minutes left is used as it is; with less it is refreshed ahead of expiry', async () => {
    const fresh = await contentSnareConnection(minutes(6));
    const before = t.fake.refreshCalls().length;
    expect(await t.ctx.tokens.accessToken(fresh.connection)).toBe(fresh.oldAccess);
    expect(t.fake.refreshCalls().length).toBe(before);

    const soon = await contentSnareConnection(minutes(4));
    expect(await t.ctx.tokens.accessToken(soon.connection)).not.toBe(soon.oldAccess);
    expect(t.fake.refreshCalls().length).toBe(before + 1);
  });

  it('forceRefresh (after a 401) refreshes a token that has not expired yet', async () => {
    const { connection, oldAccess } = await contentSnareConnection(minutes(60));
    const before = t.fake.refreshCalls().length;
    const token = await t.ctx.tokens.accessToken(connection, { forceRefresh: true });
    expect(token).not.toBe(oldAccess);
    expect(t.fake.refreshCalls().length).toBe(before + 1);
  });

  it('transient 503s are retried with backoff and the connection stays connected', async () => {
    const { connection, oldAccess } = await contentSnareConnection(-1000);
    t.fake.behaviour.failNextTokenCalls = [503, 503];
    const before = t.fake.tokenCalls.length;
    const token = await t.ctx.tokens.accessToken(connection);
    expect(token).not.toBe(oldAccess);
    expect(t.fake.tokenCalls.length).toBe(before + 3);
    expect((await new ConnectionRepo(t.ctx.store).get(connection.id))?.status).toBe('connected');
  });

  it('a refresh failing transiently on every try answers unavailable and does not mark the connection dead', async () => {
    const { connection, refresh } = await contentSnareConnection(-1000);
    t.fake.behaviour.failNextTokenCalls = [503, 429, 502];
    await expectAppError(t.ctx.tokens.accessToken(connection), 'unavailable');
    const after = await new ConnectionRepo(t.ctx.store).get(connection.id);
    expect(after?.status).toBe('connected');
    expect((await readStoredToken(t.ctx.secrets, connection))?.refreshToken).toBe(refresh);
    // Next time the provider is back, the same refresh token still works.
    expect(t.fake.validAccessTokens.has(await t.ctx.tokens.accessToken(connection))).toBe(true);
  });

  it('invalid_grant marks the connection reconnect_required with a reason, and later calls fail without a token call', async () => {
    const { connection } = await contentSnareConnection(-1000);
    t.fake.behaviour.refreshInvalidGrant = true;
    try {
      const err = await expectAppError(t.ctx.tokens.accessToken(connection), 'reconnect_required');
      expect(err.message).toContain('reconnect');
      const after = await new ConnectionRepo(t.ctx.store).get(connection.id);
      expect(after?.status).toBe('reconnect_required');
      expect(after?.statusReason).toContain('invalid_grant');
      const calls = t.fake.tokenCalls.length;
      await expectAppError(t.ctx.tokens.accessToken(after!), 'reconnect_required');
      expect(t.fake.tokenCalls.length).toBe(calls);
    } finally {
      t.fake.behaviour.refreshInvalidGrant = false;
    }
  });

  it('concurrent callers all see reconnect_required when the one refresh gets invalid_grant', async () => {
    const { connection } = await contentSnareConnection(-1000);
    t.fake.behaviour.refreshInvalidGrant = true;
    try {
      const a = t.refreshingProvider({ ownerId: 'a' });
      const b = t.refreshingProvider({ ownerId: 'b' });
      const before = t.fake.refreshCalls().length;
      const results = await Promise.allSettled(Array.from({ length: 6 }, (_, i) => (i % 2 ? a : b).accessToken(connection)));
      expect(results.every((r) => r.status === 'rejected' && (r.reason as AppError).code === 'reconnect_required')).toBe(true);
      expect(t.fake.refreshCalls().length).toBe(before + 1);
    } finally {
      t.fake.behaviour.refreshInvalidGrant = false;
    }
  });

  it('a worker whose secret cache still holds the old token neither refreshes again nor marks the connection dead', async () => {
    const { connection, oldAccess } = await contentSnareConnection(-1000);
    // Container B caches secrets like the Secrets Manager adapter does (fresh reads bypass it).
    const cache = new Map<string, string | undefined>();
    const cachingSecrets: SecretStore = {
      get: async (name, opts) => {
        if (!opts?.fresh && cache.has(name)) return cache.get(name);
        const v = await t.ctx.secrets.get(name);
        cache.set(name, v);
        return v;
      },
      put: (name, value) => t.ctx.secrets.put(name, value),
      delete: (name) => t.ctx.secrets.delete(name),
    };
    const workerB = new RefreshingTokenProvider({ ...t.ctx, secrets: cachingSecrets }, { sleep: async () => undefined });
    await cachingSecrets.get(secretNames.connectionToken(connection));
    const before = t.fake.refreshCalls().length;
    const fresh = await t.refreshingProvider({ ownerId: 'a' }).accessToken(connection);
    expect(fresh).not.toBe(oldAccess);
    // B with the connection as it was (old expiry) and as it is now (new expiry).
    expect(await workerB.accessToken(connection)).toBe(fresh);
    const current = (await new ConnectionRepo(t.ctx.store).get(connection.id))!;
    expect(await workerB.accessToken(current)).toBe(fresh);
    expect(t.fake.refreshCalls().length).toBe(before + 1);
    expect((await new ConnectionRepo(t.ctx.store).get(connection.id))?.status).toBe('connected');
  });

  it('code-host tokens never expire: read as stored, no token call', async () => {
    const connection = await t.connect({ provider: 'github', authMethod: 'oauth' }, 'gho_storedtoken');
    const calls = t.fake.tokenCalls.length;
    expect(await t.ctx.tokens.accessToken(connection, { forceRefresh: true })).toBe('gho_storedtoken');
    expect(t.fake.tokenCalls.length).toBe(calls);
  });
});

describe('RELIABILITY 25', () => {
  it('no refresh token, access token or client secret in any log line or error of these tests', () => {
    expect(t.fake.sensitive().filter((s) => s.startsWith('fake-rt-')).length).toBeGreaterThan(3);
    expect(errorsSeen.length).toBeGreaterThan(3);
    expect(t.leaks(errorsSeen)).toEqual([]);
  });
});
