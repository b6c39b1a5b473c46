import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ConnectionRepo } from '../../shared/store/connection-repo';
import { readStoredToken } from '../../shared/store/stored-token';
import { appReturnOrigin, githubAppTestContext, type GitHubAppTestContext } from '../helpers/github-app-context';
import { testContext, testPlatformKey } from '../helpers/test-context';
import { createRouter } from '../../shared/http/router';
import { routes } from '../../functions/oauth/routes';

const octoOrg = { login: 'octo-org', id: 7001, type: 'Organization' as const };

function location(res: { status: number; headers?: Record<string, string>; body?: unknown }): URL {
  if (res.status !== 302 || !res.headers?.location) throw new Error(`expected a redirect, got ${res.status}: ${String(res.body)}`);
  return new URL(res.headers.location);
}

describe('GitHub App connect flow', () => {
  let t: GitHubAppTestContext;
  beforeEach(async () => {
    t = await githubAppTestContext();
  });
  afterEach(async () => {
    await t.stop();
  });

  it('authorize answers our start step, which binds the browser and opens the App installation page with a single-use state', async () => {
    const answer = await t.authorize({ returnTo: `${appReturnOrigin}/done` });
    expect(answer.status).toBe(200);
    const { authorizeUrl, expiresAt } = JSON.parse(String(answer.body)) as { authorizeUrl: string; expiresAt: string };
    expect(authorizeUrl).toMatch(/^http:\/\/127\.0\.0\.1:8998\/oauth\/github-app\/start\?state=/);
    expect(Date.parse(expiresAt) - t.clock.now()).toBe(10 * 60 * 1000);
    const started = await t.start(authorizeUrl);
    const to = location(started);
    expect(`${to.origin}${to.pathname}`).toBe(`${t.fake.url}/apps/${t.fake.app.slug}/installations/new`);
    expect(to.searchParams.get('state')).toBe(new URL(authorizeUrl).searchParams.get('state'));
    expect(started.headers?.['set-cookie']).toMatch(/Path=\/oauth\/github-app; .*HttpOnly; SameSite=Lax/);
    // Opened a second time (a leaked link in another browser): refused.
    expect((await t.start(authorizeUrl)).status).toBe(400);
  });

  it('the install flow makes a github_app connection with the installation, its permissions and the selected repositories as allow-list', async () => {
    t.fake.app.addInstallation({
      id: 31,
      account: octoOrg,
      repositorySelection: 'selected',
      repositories: ['octo-org/api', 'octo-org/web'],
      permissions: { metadata: 'read', issues: 'write' },
      events: ['issues'],
    });
    const done = location(await t.connectApp({ login: 'mona', installationId: 31 }, { returnTo: `${appReturnOrigin}/done`, label: 'Org' }));
    expect(done.origin + done.pathname).toBe(`${appReturnOrigin}/done`);
    const id = done.searchParams.get('connectionId') ?? '';
    const connection = await new ConnectionRepo(t.ctx.store).get(id);
    expect(connection).toMatchObject({
      provider: 'github',
      authMethod: 'github_app',
      accountLogin: 'mona',
      label: 'Org',
      status: 'connected',
      repositories: ['octo-org/api', 'octo-org/web'],
      installation: {
        id: 31,
        account: { login: 'octo-org', id: '7001', type: 'Organization' },
        repositorySelection: 'selected',
        permissions: { metadata: 'read', issues: 'write' },
        events: ['issues'],
      },
    });
    // What it may do is the installation's permissions, never OAuth scopes.
    expect(connection?.scopes).toBeUndefined();
    const token = await readStoredToken(t.ctx.secrets, { id: id, provider: 'github' });
    expect(token?.accessToken).toMatch(/^ghu_/);
    expect(token?.refreshToken).toMatch(/^ghr_/);
    expect(token?.expiresAt).toBe(t.clock.now() + 28800 * 1000);
    expect(t.fake.app.refusedJwts).toEqual([]);
    expect(t.fake.requestsTo('/app/installations/31')).toHaveLength(1);
  });

  it('a forged installation_id the user cannot access is refused in the redirect and stores nothing', async () => {
    t.fake.app.addInstallation({ id: 31, account: octoOrg, members: new Set(['mona']) });
    t.fake.app.addInstallation({ id: 99, account: { login: 'victim-org', id: 7002, type: 'Organization' } });
    const answer = await t.authorize({ returnTo: `${appReturnOrigin}/done` });
    const { authorizeUrl } = JSON.parse(String(answer.body)) as { authorizeUrl: string };
    const back = t.fake.app.browse(location(await t.start(authorizeUrl)).toString(), { login: 'mona', installationId: 31 });
    back.searchParams.set('installation_id', '99');
    const refused = location(await t.callback(back));
    expect(refused.searchParams.get('error')).toBe('installation_not_yours');
    expect(refused.searchParams.get('connectionId')).toBeNull();
    expect(await new ConnectionRepo(t.ctx.store).list()).toEqual([]);
    expect(t.fake.requestsTo('/app/installations/99')).toEqual([]);
  });

  it("an installation waiting for an owner's approval (setup_action=request) is answered as such", async () => {
    const answer = await t.authorize({ returnTo: `${appReturnOrigin}/done` });
    const { authorizeUrl } = JSON.parse(String(answer.body)) as { authorizeUrl: string };
    const state = new URL(location(await t.start(authorizeUrl))).searchParams.get('state') ?? '';
    const refused = location(await t.callback(`/oauth/github-app/callback?setup_action=request&state=${state}`));
    expect(refused.searchParams.get('error')).toBe('installation_requested');
  });

  it('a user of an organization where the App is installed connects without reinstalling, and many users share the installation', async () => {
    t.fake.app.addInstallation({ id: 31, account: octoOrg, members: new Set(['mona', 'hubot']) });
    const first = location(await t.connectApp({ login: 'mona' }, { mode: 'existing', returnTo: `${appReturnOrigin}/done` }));
    const second = location(await t.connectApp({ login: 'hubot' }, { mode: 'existing', returnTo: `${appReturnOrigin}/done` }));
    const repo = new ConnectionRepo(t.ctx.store);
    const a = await repo.get(first.searchParams.get('connectionId') ?? '');
    const b = await repo.get(second.searchParams.get('connectionId') ?? '');
    expect([a?.accountLogin, b?.accountLogin]).toEqual(['mona', 'hubot']);
    expect([a?.installation?.id, b?.installation?.id]).toEqual([31, 31]);
    expect(a?.id).not.toBe(b?.id);
    // The user authorization went with PKCE, and the fake checked the verifier.
    const exchanges = t.fake.requestsTo('/login/oauth/access_token');
    expect(exchanges.every((r) => new URLSearchParams(r.body).get('code_verifier'))).toBe(true);
  });

  it('with several installations visible, the callback asks for a choice, and installationId connects the chosen one', async () => {
    t.fake.app.addInstallation({ id: 31, account: octoOrg, members: new Set(['mona']) });
    t.fake.app.addInstallation({ id: 32, account: { login: 'mona', id: 5000, type: 'User' }, members: new Set(['mona']) });
    const ask = location(await t.connectApp({ login: 'mona' }, { mode: 'existing', returnTo: `${appReturnOrigin}/done` }));
    expect(ask.searchParams.get('error')).toBe('installation_choice_required');
    expect(ask.searchParams.get('installations')).toBe('31:octo-org,32:mona');
    const chosen = location(await t.connectApp({ login: 'mona' }, { installationId: 32, returnTo: `${appReturnOrigin}/done` }));
    const c = await new ConnectionRepo(t.ctx.store).get(chosen.searchParams.get('connectionId') ?? '');
    expect(c?.installation).toMatchObject({ id: 32, account: { login: 'mona', type: 'User' }, repositorySelection: 'all' });
    expect(c?.repositories).toEqual([]);
    // On the user's own account the user administers the installation: an installation-wide connection.
    expect(c?.reach).toBe('installation');
    // An installation the user cannot see is refused even when asked for by id.
    const other = location(await t.connectApp({ login: 'mona' }, { installationId: 77, returnTo: `${appReturnOrigin}/done` }));
    expect(other.searchParams.get('error')).toBe('installation_not_yours');
  });

  it('a callback in another browser than the one that started is refused before the code is exchanged', async () => {
    t.fake.app.addInstallation({ id: 31, account: octoOrg });
    const answer = await t.authorize({});
    const { authorizeUrl } = JSON.parse(String(answer.body)) as { authorizeUrl: string };
    const back = t.fake.app.browse(location(await t.start(authorizeUrl)).toString(), { login: 'mona', installationId: 31 });
    expect((await t.callback(back, { cookies: false })).status).toBe(400);
    expect(t.fake.requestsTo('/login/oauth/access_token')).toEqual([]);
  });

  it('authorize rejects installationId with mode install, naming the field', async () => {
    const res = await t.authorize({ mode: 'install', installationId: 5 });
    expect(res.status).toBe(400);
    expect(String(res.body)).toContain('installationId');
  });

  it('nothing secret reaches a log line or an answer', async () => {
    t.fake.app.addInstallation({ id: 31, account: octoOrg });
    const res = await t.connectApp({ login: 'mona', installationId: 31 });
    const seen = [...t.logLines, JSON.stringify(res)].join('\n');
    expect([...t.fake.app.issued].filter((s) => seen.includes(s))).toEqual([]);
  });
});

describe('GitHub App connect flow without the App configured', () => {
  it('answers not_configured naming the settings to set', async () => {
    const base = await testContext();
    try {
      const handle = createRouter(routes(base.ctx), { platformApiKey: base.ctx.platformApiKey });
      const res = await handle({
        method: 'POST',
        path: '/oauth/github-app/authorize',
        headers: { authorization: `Bearer ${testPlatformKey}`, 'content-type': 'application/json' },
        query: new URLSearchParams(),
        body: Buffer.from('{}'),
      });
      expect(res.status).toBe(501);
      const error = (JSON.parse(String(res.body)) as { error: { code: string; message: string } }).error;
      expect(error.code).toBe('not_configured');
      expect(error.message).toContain('GITHUB_APP_ID, GITHUB_APP_SLUG, GITHUB_APP_CLIENT_ID, GITHUB_APP_CLIENT_SECRET');
    } finally {
      base.close();
    }
  });
});
