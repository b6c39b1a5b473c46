import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readStoredToken } from '../../shared/store/stored-token';
import { revokeConnection, revokeForDisconnect } from '../../shared/oauth/revoke';
import { oauthTestContext, type OAuthTestContext } from '../helpers/oauth-test-context';
import { connectViaOAuth } from '../helpers/oauth-connect';

let t: OAuthTestContext;
beforeAll(async () => {
  t = await oauthTestContext();
});
afterAll(async () => {
  await t.stop();
});

describe('revokeConnection', () => {
  it('github OAuth: deletes the grant with the app credentials, and the token stops working', async () => {
    const connection = await connectViaOAuth(t, 'github');
    const token = (await readStoredToken(t.ctx.secrets, connection))?.accessToken ?? '';
    const result = await revokeConnection(t.ctx, connection);
    expect(result).toEqual({ revoked: true });
    const call = t.fake.revokeCalls.at(-1);
    expect(call).toMatchObject({ method: 'DELETE', path: `/applications/${t.fake.clientId}/grant` });
    expect(call?.authorization).toBe(`Basic ${Buffer.from(`${t.fake.clientId}:${t.fake.clientSecret}`).toString('base64')}`);
    expect(JSON.parse(call?.body ?? '{}')).toEqual({ access_token: token });
    expect(t.fake.validAccessTokens.has(token)).toBe(false);
  });

  it('github OAuth with another connection of the same account: deletes only this token, not the shared grant', async () => {
    const first = await connectViaOAuth(t, 'github');
    const second = await connectViaOAuth(t, 'github');
    expect(first.accountId).toBe(second.accountId);
    expect(await revokeConnection(t.ctx, first)).toEqual({ revoked: true });
    expect(t.fake.revokeCalls.at(-1)?.path).toBe(`/applications/${t.fake.clientId}/token`);
    const secondToken = (await readStoredToken(t.ctx.secrets, second))?.accessToken ?? '';
    expect(t.fake.validAccessTokens.has(secondToken)).toBe(true);
  });

  it('github user-made token: nothing to revoke at the code host, no call', async () => {
    const connection = await t.connect({ provider: 'github', authMethod: 'token' });
    const calls = t.fake.revokeCalls.length;
    const result = await revokeConnection(t.ctx, connection);
    expect(result.revoked).toBe(false);
    expect(result.reason).toMatch(/deleted here only.*revoke it at the code host/i);
    expect(t.fake.revokeCalls.length).toBe(calls);
    await expect(revokeForDisconnect(t.ctx)(connection)).resolves.toMatchObject({ revoked: false, note: result.reason });
  });

  it('contentsnare: posts the refresh token to /oauth/revoke (RFC 7009 form)', async () => {
    const connection = await connectViaOAuth(t, 'contentsnare');
    const stored = await readStoredToken(t.ctx.secrets, connection);
    expect(await revokeConnection(t.ctx, connection)).toEqual({ revoked: true });
    const call = t.fake.revokeCalls.at(-1);
    expect(call).toMatchObject({ method: 'POST', path: '/oauth/revoke' });
    const form = new URLSearchParams(call?.body);
    expect(form.get('token')).toBe(stored?.refreshToken);
    expect(form.get('token_type_hint')).toBe('refresh_token');
    expect(form.get('client_id')).toBe(t.fake.clientId);
  });

  it('an already revoked github token reports revoked: false without throwing', async () => {
    const connection = await connectViaOAuth(t, 'github');
    await revokeConnection(t.ctx, connection);
    const again = await revokeConnection(t.ctx, connection);
    expect(again.revoked).toBe(false);
    expect(again.reason).toContain('already revoked');
  });

  it('an unreachable provider or a missing configuration never throws', async () => {
    const connection = await connectViaOAuth(t, 'github');
    const down = { ...t.ctx, fetch: async () => Promise.reject(new TypeError('fetch failed')) };
    expect(await revokeConnection(down, connection)).toEqual({ revoked: false, failed: true, reason: 'code host unreachable' });
    await expect(revokeForDisconnect(down)(connection)).rejects.toThrow('code host unreachable');
    const bare = { ...t.ctx, oauthClientSecret: async () => undefined };
    const result = await revokeConnection(bare, connection);
    expect(result.revoked).toBe(false);
    expect(result.reason).toContain('GITHUB_CLIENT_SECRET');
  });

  it('a token is not sent to be revoked at another origin than it was issued for (GITHUB_API_URL changed since)', async () => {
    const connection = await connectViaOAuth(t, 'github');
    const moved = { ...t.ctx, config: { ...t.ctx.config, github: { ...t.ctx.config.github, apiUrl: 'http://127.0.0.1:9' } } };
    const calls = t.fake.revokeCalls.length;
    const result = await revokeConnection(moved, connection);
    expect(result).toMatchObject({ revoked: false });
    expect(result.reason).toContain('another server');
    expect(t.fake.revokeCalls.length).toBe(calls);
  });

  it('no token or secret in the log lines or results', () => {
    expect(t.leaks()).toEqual([]);
  });
});
