import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { codeHostAccess } from '../../shared/providers/github/code-host-access';
import { ConnectionRepo } from '../../shared/store/connection-repo';
import { createTokenConnection } from '../../shared/connections/create-token-connection';
import { readStoredToken, writeStoredToken } from '../../shared/store/stored-token';
import type { Connection } from '../../shared/domain/model';
import { invokeTool } from '../../shared/tools/invoke';
import { allProviderTools } from '../../shared/wiring/provider-tools';
import { startFakeHttp, type FakeServer } from '../helpers/fake-http';
import { appOrigin, oauthTestContext, type OAuthTestContext } from '../helpers/oauth-test-context';
import { browseToCallback, oauthConnectionId } from '../helpers/oauth-connect';

// docs/security.md, section 1: a token never leaves the origin it was issued for.

let t: OAuthTestContext;
/** An "enterprise server" on another origin; it answers GET /user without an id. */
let enterprise: FakeServer;
const enterpriseBase = () => `${enterprise.url}/api/v3`;
const githubOrigin = () => new URL(t.fake.url).origin;

beforeAll(async () => {
  t = await oauthTestContext();
  enterprise = await startFakeHttp(() => ({ status: 200, body: { login: 'octocat' } }));
});
afterAll(async () => {
  await enterprise.close();
  await t.stop();
});

/** A user-made enterprise token connection, its token bound to the enterprise origin. */
async function enterpriseConnection(extra: Partial<Connection> = {}): Promise<Connection> {
  const c = await t.connect({ apiBaseUrl: enterpriseBase(), ...extra }, 'ghe_enterpriseToken000000000000000000');
  await writeStoredToken(t.ctx.secrets, c, { accessToken: 'ghe_enterpriseToken000000000000000000', origin: enterprise.url });
  return c;
}

function startReconnect(connectionId: string): Promise<URL> {
  return browseToCallback(t, 'github', { connectionId, returnTo: `${appOrigin}/back` });
}

const errorOf = (location: string | undefined) => new URL(location ?? '').searchParams.get('error');

describe('an OAuth reconnect proves the same account on the same origin', () => {
  it("refuses at authorize a reconnect of a connection whose base is not the OAuth provider's API", async () => {
    const c = await enterpriseConnection({ accountId: '583231' });
    const res = await t.authorize('github', { connectionId: c.id, returnTo: `${appOrigin}/back` });
    expect(res.status).toBe(409);
    expect(JSON.parse(String(res.body)).error.code).toBe('token_origin_mismatch');
    expect(String(res.body)).not.toContain('authorizeUrl');
  });

  it("refuses at the callback a reconnect whose token origin differs from the connection's, storing nothing", async () => {
    const c = await t.connect({ accountId: '583231' }, 'ghp_before0000000000000000000000000000');
    const back = await startReconnect(c.id);
    // The base changed between authorize and callback (an older item, a concurrent writer).
    await new ConnectionRepo(t.ctx.store).update(c.id, (x) => ({ ...x, apiBaseUrl: enterpriseBase() }));
    const res = await t.callback(back);
    expect(res.status).toBe(302);
    expect(errorOf(res.headers?.location)).toBe('token_origin_mismatch');
    expect((await readStoredToken(t.ctx.secrets, c))?.accessToken).toBe('ghp_before0000000000000000000000000000');
    expect((await new ConnectionRepo(t.ctx.store).get(c.id))?.authMethod).toBe('token');
    expect(enterprise.requests).toHaveLength(0);
  });

  it('refuses a reconnect of a connection that has no account id (nothing proves it is the same account)', async () => {
    const c = await t.connect({}, 'ghp_noAccountId00000000000000000000000');
    const back = await startReconnect(c.id);
    const res = await t.callback(back);
    expect(errorOf(res.headers?.location)).toBe('account_unverified');
    expect((await readStoredToken(t.ctx.secrets, c))?.accessToken).toBe('ghp_noAccountId00000000000000000000000');
  });

  it('refuses a reconnect into another account', async () => {
    const c = await t.connect({ accountId: '1' }, 'ghp_otherAccount0000000000000000000000');
    const res = await t.callback(await startReconnect(c.id));
    expect(errorOf(res.headers?.location)).toBe('account_mismatch');
    expect((await readStoredToken(t.ctx.secrets, c))?.accessToken).toBe('ghp_otherAccount0000000000000000000000');
  });

  it('the same account on the same origin is reconnected, and the new token records its origin', async () => {
    const c = await t.connect({ accountId: '583231' }, 'ghp_sameAccount00000000000000000000000');
    const res = await t.callback(await startReconnect(c.id));
    expect(new URL(res.headers?.location ?? '').searchParams.get('connectionId')).toBe(c.id);
    const token = await readStoredToken(t.ctx.secrets, c);
    expect(t.fake.validAccessTokens.has(token?.accessToken ?? '')).toBe(true);
    expect(token?.origin).toBe(githubOrigin());
  });
});

describe('every token records the origin it was issued for', () => {
  it('a new OAuth connection: the origin of GITHUB_API_URL', async () => {
    const id = await oauthConnectionId(t, 'github');
    expect((await readStoredToken(t.ctx.secrets, { id: id, provider: 'github' }))?.origin).toBe(githubOrigin());
  });

  it('a user-made token: the origin it was verified at', async () => {
    const c = await createTokenConnection(t.ctx, {
      provider: 'github',
      token: 'ghe_madeByUser00000000000000000000000',
      apiBaseUrl: enterpriseBase(),
    });
    expect((await readStoredToken(t.ctx.secrets, c))?.origin).toBe(enterprise.url);
  });
});

describe('the one place that builds code-host requests refuses another origin', () => {
  /** A github.com OAuth token on a connection pointing at the enterprise server: the attack's end state. */
  async function crossedConnection(): Promise<Connection> {
    const c = await t.connect(
      { authMethod: 'oauth', accountId: '583231', apiBaseUrl: enterpriseBase() },
      'gho_githubDotCom000000000000000000000',
    );
    await writeStoredToken(t.ctx.secrets, c, { accessToken: 'gho_githubDotCom000000000000000000000', origin: githubOrigin() });
    return c;
  }
  const invoke = (toolId: string, connectionId: string, input: unknown) =>
    invokeTool(t.ctx, { toolId, connectionId, input }, allProviderTools());

  it('github.api_call answers token_origin_mismatch and sends nothing', async () => {
    const c = await crossedConnection();
    const before = enterprise.requests.length;
    const result = await invoke('github.api_call', c.id, { method: 'GET', endpoint: '/user' });
    expect(result).toMatchObject({ ok: false, error: { code: 'token_origin_mismatch' } });
    expect(enterprise.requests.length).toBe(before);
  });

  it('an Octokit step answers token_origin_mismatch and sends nothing', async () => {
    const c = await crossedConnection();
    const before = enterprise.requests.length;
    const result = await invoke('github.get_commit', c.id, { owner: 'o', repo: 'r', ref: 'main' });
    expect(result).toMatchObject({ ok: false, error: { code: 'token_origin_mismatch' } });
    expect(enterprise.requests.length).toBe(before);
  });

  it('webhook registration, polling and the sweep (codeHostAccess) refuse it too', async () => {
    const c = await crossedConnection();
    await expect(codeHostAccess(t.ctx, c)).rejects.toMatchObject({ code: 'token_origin_mismatch' });
  });

  it('a token stored before origins were recorded: an OAuth one is bound to GITHUB_API_URL, so an enterprise base is refused', async () => {
    const c = await t.connect(
      { authMethod: 'oauth', accountId: '583231', apiBaseUrl: enterpriseBase() },
      'gho_legacy0000000000000000000000000000',
    );
    await expect(codeHostAccess(t.ctx, c)).rejects.toMatchObject({ code: 'token_origin_mismatch' });
    const onDefault = await t.connect({ authMethod: 'oauth', accountId: '583231' }, 'gho_legacyDefault00000000000000000000');
    expect(await codeHostAccess(t.ctx, onDefault)).toMatchObject({ baseUrl: t.fake.url, token: 'gho_legacyDefault00000000000000000000' });
  });

  it('a token stored before origins were recorded: a user-made one is bound to the base it was verified at (which cannot change)', async () => {
    const c = await t.connect({ apiBaseUrl: enterpriseBase() }, 'ghe_legacyUserMade0000000000000000000');
    expect(await codeHostAccess(t.ctx, c)).toMatchObject({ baseUrl: enterpriseBase(), token: 'ghe_legacyUserMade0000000000000000000' });
  });
});
