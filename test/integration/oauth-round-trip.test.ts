import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConnectionRepo } from '../../shared/store/connection-repo';
import { readStoredToken } from '../../shared/store/stored-token';
import { keys } from '../../shared/store/table-design';
import { appOrigin, oauthTestContext, publicUrl, type OAuthTestContext } from '../helpers/oauth-test-context';

let t: OAuthTestContext;
beforeAll(async () => {
  t = await oauthTestContext();
});
afterAll(async () => {
  await t.stop();
});

async function roundTrip(provider: 'github' | 'contentsnare', body: Record<string, unknown>) {
  const started = await t.authorize(provider, body);
  expect(started.status).toBe(200);
  const { authorizeUrl, expiresAt } = JSON.parse(String(started.body)) as { authorizeUrl: string; expiresAt: string };
  // The browser opens authorizeUrl (our start step), which sends it on to the provider.
  const providerUrl = (await t.start(authorizeUrl)).headers?.location ?? '';
  const back = await t.fake.browse(providerUrl);
  const answer = await t.callback(back);
  return { authorizeUrl: new URL(providerUrl), expiresAt, back, answer };
}

describe('OAuth browser round trip', () => {
  it('github: authorize URL carries the registered redirect URI, scopes, state and an S256 challenge', async () => {
    const started = await t.authorize('github', { returnTo: `${appOrigin}/integrations` });
    const authorizeUrl = (JSON.parse(String(started.body)) as { authorizeUrl: string }).authorizeUrl;
    expect(authorizeUrl.startsWith(`${publicUrl}/oauth/github/start?state=`)).toBe(true);
    const url = new URL((await t.start(authorizeUrl)).headers?.location ?? '');
    expect(`${url.origin}${url.pathname}`).toBe(`${t.fake.url}/login/oauth/authorize`);
    expect(url.searchParams.get('client_id')).toBe(t.fake.clientId);
    expect(url.searchParams.get('redirect_uri')).toBe(`${publicUrl}/oauth/github/callback`);
    expect(url.searchParams.get('scope')?.split(' ')).toEqual(
      expect.arrayContaining(['repo', 'workflow', 'gist', 'admin:repo_hook', 'read:org']),
    );
    expect(url.searchParams.get('state')).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(url.searchParams.get('code_challenge')).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(url.searchParams.get('code_challenge_method')).toBe('S256');
  });

  it('github: creates a connection whose token lives in the secret store, not the table', async () => {
    const before = t.fake.tokenCalls.length;
    const { answer, expiresAt } = await roundTrip('github', { returnTo: `${appOrigin}/integrations?tab=github`, label: 'work' });
    expect(Date.parse(expiresAt) - t.clock.now()).toBe(10 * 60 * 1000);
    expect(answer.status).toBe(302);
    const location = new URL(answer.headers?.location ?? '');
    expect(location.origin + location.pathname).toBe(`${appOrigin}/integrations`);
    expect(location.searchParams.get('tab')).toBe('github');
    const connectionId = location.searchParams.get('connectionId') ?? '';
    expect(answer.headers?.['cache-control']).toBe('no-store');

    // The token call used the exact redirect URI and the verifier (the fake checked S256).
    const call = t.fake.tokenCalls[before];
    expect(t.fake.tokenCalls.length).toBe(before + 1);
    expect(call?.params.redirect_uri).toBe(`${publicUrl}/oauth/github/callback`);
    expect(call?.params.code_verifier).toMatch(/^[A-Za-z0-9_-]{43}$/);

    const connection = await new ConnectionRepo(t.ctx.store).get(connectionId);
    expect(connection).toMatchObject({
      provider: 'github',
      authMethod: 'oauth',
      status: 'connected',
      accountLogin: 'octocat',
      accountId: '583231',
      label: 'work',
    });
    expect(connection?.scopes).toEqual(['repo', 'gist', 'workflow']);
    const token = await readStoredToken(t.ctx.secrets, { id: connectionId, provider: 'github' });
    expect(t.fake.validAccessTokens.has(token?.accessToken ?? '')).toBe(true);
    // Works through the context's token provider (github tokens do not expire).
    expect(await t.ctx.tokens.accessToken(connection!)).toBe(token?.accessToken);
    const rawItem = await t.ctx.store.get(keys.connection(connectionId));
    expect(JSON.stringify(rawItem)).not.toContain(token?.accessToken);
  });

  it('contentsnare: authorize URL is response_type=code with its scopes, and the round trip stores a refreshable token', async () => {
    const before = t.fake.tokenCalls.length;
    const { authorizeUrl, answer } = await roundTrip('contentsnare', { returnTo: `${appOrigin}/done`, label: 'Agency A' });
    expect(`${authorizeUrl.origin}${authorizeUrl.pathname}`).toBe(`${t.fake.url}/oauth/authorization`);
    expect(authorizeUrl.searchParams.get('response_type')).toBe('code');
    expect(authorizeUrl.searchParams.get('scope')).toBe('read_clients write_clients read_requests write_requests read_templates');
    expect(authorizeUrl.searchParams.get('redirect_uri')).toBe(`${publicUrl}/oauth/contentsnare/callback`);
    expect(answer.status).toBe(302);
    const connectionId = new URL(answer.headers?.location ?? '').searchParams.get('connectionId') ?? '';

    const call = t.fake.tokenCalls[before];
    expect(call?.contentType).toContain('application/json');
    expect(call?.params).toMatchObject({
      grant_type: 'authorization_code',
      client_id: t.fake.clientId,
      redirect_uri: `${publicUrl}/oauth/contentsnare/callback`,
    });

    const connection = await new ConnectionRepo(t.ctx.store).get(connectionId);
    expect(connection).toMatchObject({
      provider: 'contentsnare',
      authMethod: 'oauth',
      status: 'connected',
      accountLogin: 'admin@agency.example',
      label: 'Agency A',
    });
    // GET /me names the user who authorised, not the account: no account id is taken from it.
    expect(connection?.accountId).toBeUndefined();
    expect(connection?.tokenExpiresAt).toBe(t.clock.now() + 7200 * 1000);
    const token = await readStoredToken(t.ctx.secrets, { id: connectionId, provider: 'contentsnare' });
    expect(token?.refreshToken).toMatch(/^fake-rt-/);
    expect(JSON.stringify(await t.ctx.store.get(keys.connection(connectionId)))).not.toContain(token?.refreshToken);
  });

  it('several connections of one service coexist, each authorized on its own', async () => {
    const a = await roundTrip('contentsnare', { returnTo: `${appOrigin}/a` });
    const b = await roundTrip('contentsnare', { returnTo: `${appOrigin}/b` });
    const idA = new URL(a.answer.headers?.location ?? '').searchParams.get('connectionId');
    const idB = new URL(b.answer.headers?.location ?? '').searchParams.get('connectionId');
    expect(idA).not.toBe(idB);
    const tokenA = await readStoredToken(t.ctx.secrets, { id: idA ?? '', provider: 'contentsnare' });
    const tokenB = await readStoredToken(t.ctx.secrets, { id: idB ?? '', provider: 'contentsnare' });
    expect(tokenA?.accessToken).not.toBe(tokenB?.accessToken);
  });

  it('without returnTo the callback answers a page naming the connection instead of redirecting', async () => {
    const { answer } = await roundTrip('github', {});
    expect(answer.status).toBe(200);
    expect(answer.headers?.['content-type']).toContain('text/html');
    expect(String(answer.body)).toMatch(/conn_[a-f0-9]{32}/);
  });

  it('reconnecting replaces the token in place and clears reconnect_required', async () => {
    const first = await roundTrip('contentsnare', { returnTo: `${appOrigin}/x` });
    const id = new URL(first.answer.headers?.location ?? '').searchParams.get('connectionId') ?? '';
    const repo = new ConnectionRepo(t.ctx.store);
    await repo.update(id, (c) => ({ ...c, status: 'reconnect_required', statusReason: 'refresh token revoked' }));
    const oldToken = await readStoredToken(t.ctx.secrets, { id: id, provider: 'contentsnare' });

    const again = await roundTrip('contentsnare', { returnTo: `${appOrigin}/x`, connectionId: id });
    expect(new URL(again.answer.headers?.location ?? '').searchParams.get('connectionId')).toBe(id);
    const after = await repo.get(id);
    expect(after?.status).toBe('connected');
    expect(after?.statusReason).toBeUndefined();
    expect((await readStoredToken(t.ctx.secrets, { id: id, provider: 'contentsnare' }))?.accessToken).not.toBe(oldToken?.accessToken);
  });

  it('reconnecting refuses a connection of the other provider', async () => {
    const gh = await roundTrip('github', { returnTo: `${appOrigin}/x` });
    const id = new URL(gh.answer.headers?.location ?? '').searchParams.get('connectionId') ?? '';
    const res = await t.authorize('contentsnare', { connectionId: id });
    expect(res.status).toBe(400);
  });

  it('the authorize call needs the platform key', async () => {
    const res = await t.authorize('github', {}, 'Bearer wrong');
    expect(res.status).toBe(401);
  });

  it('an unknown provider is 404', async () => {
    expect((await t.authorize('gitlab', {})).status).toBe(404);
    expect((await t.callback('/oauth/gitlab/callback?state=x&code=y')).status).toBe(404);
  });

  it('no token, secret, code or verifier reached a log line or an answer', () => {
    expect(t.logLines.length).toBeGreaterThan(0);
    expect(t.fake.sensitive().length).toBeGreaterThan(5);
    expect(t.leaks()).toEqual([]);
  });
});
