import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ConnectionRepo } from '../../shared/store/connection-repo';
import { readStoredToken } from '../../shared/store/stored-token';
import { invokeTool, type ToolResult } from '../../shared/tools/invoke';
import { allProviderTools } from '../../shared/wiring/provider-tools';
import { oauthTestContext, type OAuthTestContext } from '../helpers/oauth-test-context';
import { oauthConnectionId } from '../helpers/oauth-connect';
import { RefreshingTokenProvider } from '../../shared/oauth/refreshing-token-provider';
import type { AppContext } from '../../shared/ports/app-context';
import type { SecretStore } from '../../shared/ports';

// The code host's user access tokens that expire (GitHub Apps, OAuth apps
// that opted in) are refreshed like the collection service's; the others stay as they are.

let t: OAuthTestContext;
const hours = (n: number) => n * 60 * 60 * 1000;

beforeAll(async () => {
  t = await oauthTestContext();
});
afterAll(async () => {
  await t.stop();
});
beforeEach(() => {
  t.fake.behaviour.githubExpiringTokens = true;
  t.fake.behaviour.refreshInvalidGrant = false;
  t.fake.behaviour.failNextTokenCalls = [];
});

/** Connects through the browser round trip; the fake's app issues expiring user tokens. */
function connectGithub(): Promise<string> {
  return oauthConnectionId(t, 'github');
}

const whoAmI = (connectionId: string): Promise<ToolResult> =>
  invokeTool(t.ctx, { toolId: 'github.api_call', connectionId, input: { method: 'GET', endpoint: '/user' } }, allProviderTools());

describe('expiring code-host tokens', () => {
  it('the code exchange keeps the expiry, the refresh token and its expiry', async () => {
    const id = await connectGithub();
    const token = await readStoredToken(t.ctx.secrets, { id: id, provider: 'github' });
    expect(token?.accessToken).toMatch(/^ghu_/);
    expect(token?.refreshToken).toMatch(/^ghr_/);
    expect(token?.expiresAt).toBe(t.clock.now() + 28800 * 1000);
    expect(token?.refreshTokenExpiresAt).toBe(t.clock.now() + 15897600 * 1000);
    expect((await new ConnectionRepo(t.ctx.store).get(id))?.tokenExpiresAt).toBe(t.clock.now() + 28800 * 1000);
  });

  it('an expired token is refreshed exactly once under 20 concurrent tool steps, and every step uses the new token', async () => {
    const id = await connectGithub();
    const old = await readStoredToken(t.ctx.secrets, { id: id, provider: 'github' });
    t.clock.advance(hours(8));
    const before = t.fake.refreshCalls().length;
    const results = await Promise.all(Array.from({ length: 20 }, () => whoAmI(id)));
    expect(results.map((r) => r.ok)).toEqual(Array(20).fill(true));
    expect(t.fake.refreshCalls().length).toBe(before + 1);
    expect(t.fake.refreshCalls().at(-1)?.params).toMatchObject({
      grant_type: 'refresh_token',
      refresh_token: old?.refreshToken,
      client_id: t.fake.clientId,
      client_secret: t.fake.clientSecret,
    });
    const now = await readStoredToken(t.ctx.secrets, { id: id, provider: 'github' });
    expect(now?.accessToken).not.toBe(old?.accessToken);
    // GitHub rotates the refresh token: the new one is kept, and the origin stays.
    expect(now?.refreshToken).not.toBe(old?.refreshToken);
    expect(now?.origin).toBe(old?.origin);
    expect((await new ConnectionRepo(t.ctx.store).get(id))?.status).toBe('connected');
  });

  it('refreshes ahead of expiry across two workers sharing the table, once', async () => {
    const id = await connectGithub();
    t.clock.advance(hours(8) - 60_000);
    const connection = (await new ConnectionRepo(t.ctx.store).get(id))!;
    const a = t.refreshingProvider({ ownerId: 'container-a' });
    const b = t.refreshingProvider({ ownerId: 'container-b' });
    const before = t.fake.refreshCalls().length;
    const tokens = await Promise.all(Array.from({ length: 20 }, (_, i) => (i % 2 ? a : b).accessToken(connection)));
    expect(new Set(tokens).size).toBe(1);
    expect(t.fake.refreshCalls().length).toBe(before + 1);
  });

  it('a dead refresh token (HTTP 200, error bad_refresh_token) marks the connection reconnect_required', async () => {
    const id = await connectGithub();
    t.clock.advance(hours(9));
    t.fake.behaviour.refreshInvalidGrant = true;
    const result = await whoAmI(id);
    expect(result).toMatchObject({ ok: false, error: { code: 'reconnect_required' } });
    const after = await new ConnectionRepo(t.ctx.store).get(id);
    expect(after?.status).toBe('reconnect_required');
    expect(after?.statusReason).toContain('bad_refresh_token');
  });

  it('a transient failure of the token endpoint does not mark the connection', async () => {
    const id = await connectGithub();
    t.clock.advance(hours(9));
    t.fake.behaviour.failNextTokenCalls = [503, 502, 503];
    const result = await whoAmI(id);
    expect(result).toMatchObject({ ok: false, error: { code: 'unavailable' } });
    expect((await new ConnectionRepo(t.ctx.store).get(id))?.status).toBe('connected');
    // Once the code host is back, the same refresh token works.
    expect((await whoAmI(id)).ok).toBe(true);
  });

  it('a refresh token past its own expiry is not sent: the connection must be reconnected', async () => {
    const id = await connectGithub();
    t.clock.advance(15897600 * 1000 + 1000);
    const before = t.fake.tokenCalls.length;
    expect(await whoAmI(id)).toMatchObject({ ok: false, error: { code: 'reconnect_required' } });
    expect(t.fake.tokenCalls.length).toBe(before);
  });

  it('tokens that do not expire (OAuth apps without expiry) are used as stored, with no token call', async () => {
    t.fake.behaviour.githubExpiringTokens = false;
    const id = await connectGithub();
    const token = await readStoredToken(t.ctx.secrets, { id: id, provider: 'github' });
    expect(token?.expiresAt).toBeUndefined();
    t.clock.advance(hours(24 * 365));
    const before = t.fake.tokenCalls.length;
    expect((await whoAmI(id)).ok).toBe(true);
    expect(t.fake.tokenCalls.length).toBe(before);
  });
});

/**
 * The deployed secret store's read cache (secrets-manager-store.ts): a value read stays
 * served for its time to live unless the read asks for `fresh`.
 */
class CachingSecretStore implements SecretStore {
  private readonly cache = new Map<string, string>();
  constructor(private readonly under: SecretStore) {}
  async get(name: string, opts?: { fresh?: boolean }) {
    const hit = this.cache.get(name);
    if (!opts?.fresh && hit !== undefined) return hit;
    const value = await this.under.get(name);
    if (value !== undefined) this.cache.set(name, value);
    return value;
  }
  async put(name: string, value: string) {
    this.cache.delete(name);
    await this.under.put(name, value);
  }
  async delete(name: string) {
    this.cache.delete(name);
    await this.under.delete(name);
  }
}

/** Another container over the same table and secrets, with its own secret cache and token provider. */
function container(ownerId: string): AppContext {
  const secrets = new CachingSecretStore(t.ctx.secrets);
  const base = { ...t.ctx, secrets };
  return { ...base, tokens: new RefreshingTokenProvider(base, { ownerId, sleep: async () => undefined }) };
}

const invokeIn = (ctx: AppContext, toolId: string, connectionId: string, input: Record<string, unknown>) =>
  invokeTool(ctx, { toolId, connectionId, input }, allProviderTools());

describe('a token refreshed by another worker', () => {
  it('github.api_call: the container still holding the old token gets 401, reads the stored one and succeeds, with no second refresh', async () => {
    const id = await connectGithub();
    const a = container('container-a');
    expect((await invokeIn(a, 'github.api_call', id, { method: 'GET', endpoint: '/user' })).ok).toBe(true);
    // Container B refreshes (a 401 of its own, or the refresh-ahead): the code host ends the old token at once.
    const connection = (await new ConnectionRepo(t.ctx.store).get(id))!;
    await container('container-b').tokens.accessToken(connection, { forceRefresh: true });
    const refreshes = t.fake.refreshCalls().length;
    const result = await invokeIn(a, 'github.api_call', id, { method: 'GET', endpoint: '/user' });
    expect(result).toMatchObject({ ok: true, data: { status: 200, data: { login: 'octocat' } } });
    expect(t.fake.refreshCalls().length).toBe(refreshes);
    expect((await new ConnectionRepo(t.ctx.store).get(id))?.status).toBe('connected');
  });

  it('a pre-built (Octokit) step: the same', async () => {
    const id = await connectGithub();
    const a = container('container-a');
    expect((await invokeIn(a, 'github.star_repo', id, { owner: 'octo-org', repo: 'hello-world' })).ok).toBe(true);
    const connection = (await new ConnectionRepo(t.ctx.store).get(id))!;
    await container('container-b').tokens.accessToken(connection, { forceRefresh: true });
    const refreshes = t.fake.refreshCalls().length;
    const result = await invokeIn(a, 'github.star_repo', id, { owner: 'octo-org', repo: 'hello-world' });
    expect(result).toMatchObject({ ok: true, data: { starred: true, repository: 'octo-org/hello-world' } });
    expect(t.fake.refreshCalls().length).toBe(refreshes);
  });

  it('a stored token that is itself refused is refreshed once, and the call succeeds with the new one', async () => {
    const id = await connectGithub();
    const stored = await readStoredToken(t.ctx.secrets, { id: id, provider: 'github' });
    // The code host ended the token (as a refresh elsewhere would) but our store still holds it.
    t.fake.validAccessTokens.delete(stored!.accessToken);
    const refreshes = t.fake.refreshCalls().length;
    expect((await whoAmI(id)).ok).toBe(true);
    expect(t.fake.refreshCalls().length).toBe(refreshes + 1);
  });

  it('a token that does not expire and is refused: one fresh read, no refresh, then reconnect_required', async () => {
    t.fake.behaviour.githubExpiringTokens = false;
    const id = await connectGithub();
    const stored = await readStoredToken(t.ctx.secrets, { id: id, provider: 'github' });
    t.fake.validAccessTokens.delete(stored!.accessToken);
    const userCalls = t.fake.userCalls;
    const tokenCalls = t.fake.tokenCalls.length;
    expect(await whoAmI(id)).toMatchObject({ ok: false, error: { code: 'reconnect_required' } });
    expect(t.fake.userCalls).toBe(userCalls + 1);
    expect(t.fake.tokenCalls.length).toBe(tokenCalls);
  });
});

describe('RELIABILITY 25', () => {
  it('no access or refresh token in any log line or answer of these tests', () => {
    expect(t.fake.sensitive().some((s) => s.startsWith('ghr_'))).toBe(true);
    expect(t.leaks()).toEqual([]);
  });
});
