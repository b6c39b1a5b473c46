import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeGitHubApp, type FakeGitHubApp } from '../helpers/fake-github-app';
import { freePort, startLocalProcess, type RunningLocal } from '../helpers/local-process';
import { httpApiCaller } from '../helpers/platform-api-caller';

const appOrigin = 'https://app.example.test';
const key = 'k'.repeat(40);
const bearer = (r: { headers: Record<string, unknown> }) => String(r.headers.authorization ?? '').replace(/^(Bearer|token) /i, '');

// From npm start with the GITHUB_APP_* settings: the browser's install flow makes a github_app
// connection, and its tool steps act with the installation's token (gists with the user's).
describe('npm start: a GitHub App connection through the install flow', () => {
  let gh: FakeGitHubApp;
  let running: RunningLocal;
  const dataDir = mkdtempSync(join(tmpdir(), 'local-github-app-'));

  beforeAll(async () => {
    gh = await startFakeGitHubApp();
    gh.app.addInstallation({
      id: 61,
      account: { login: 'octo-org', id: 8001, type: 'Organization' },
      repositorySelection: 'selected',
      repositories: ['octo-org/api'],
      permissions: { metadata: 'read', issues: 'write', contents: 'read' },
      events: ['issues', 'push'],
    });
    // mona owns the organization she installs on: an installation-wide connection.
    gh.app.setOrgRole('octo-org', 'mona', 'admin');
    const port = await freePort();
    running = await startLocalProcess({
      DATA_DIR: dataDir,
      PORT: String(port),
      PUBLIC_URL: `http://127.0.0.1:${port}`,
      PLATFORM_API_KEY: key,
      DISPATCH_SIGNING_SECRET: 's'.repeat(40),
      ALLOWED_RETURN_ORIGINS: appOrigin,
      POLL_INTERVAL_SECONDS: '3600',
      ...gh.env(`http://127.0.0.1:${port}`),
    });
  }, 60_000);
  afterAll(async () => {
    await running?.stop();
    await gh?.close();
  });

  const api = httpApiCaller(() => running.url, key);

  it('installs, connects, and runs steps with the installation token and gists with the user token', async () => {
    const started = await api('POST', '/oauth/github-app/authorize', { returnTo: `${appOrigin}/done`, label: 'octo-org' });
    expect(started.status).toBe(200);
    const start = await fetch(started.body.authorizeUrl as string, { redirect: 'manual' });
    expect(start.status).toBe(302);
    const cookie = (start.headers.get('set-cookie') ?? '').split(';')[0] ?? '';
    const installPage = new URL(start.headers.get('location') ?? '');
    expect(installPage.pathname).toBe(`/apps/${gh.app.slug}/installations/new`);
    const callback = gh.app.browse(installPage.toString(), { login: 'mona', installationId: 61 });
    const back = await fetch(callback, { redirect: 'manual', headers: { cookie } });
    expect(back.status).toBe(302);
    const done = new URL(back.headers.get('location') ?? 'about:blank');
    const connectionId = done.searchParams.get('connectionId') ?? '';
    expect(connectionId).toMatch(/^conn_/);

    const connection = (await api('GET', `/connections/${connectionId}`)).body;
    expect(connection).toMatchObject({
      authMethod: 'github_app',
      accountLogin: 'mona',
      reach: 'installation',
      repositories: ['octo-org/api'],
      installation: { id: 61, permissions: { metadata: 'read', issues: 'write', contents: 'read' }, events: ['issues', 'push'] },
    });
    expect(connection.scopes).toBeUndefined();

    const repo = await api('POST', '/tools/github.get_repository/invoke', { connectionId, input: { owner: 'octo-org', repo: 'api' } });
    expect(repo.body).toMatchObject({ ok: true, data: { full_name: 'octo-org/api' } });
    const gist = await api('POST', '/tools/github.create_gist/invoke', { connectionId, input: { files: { 'a.md': { content: 'hi' } } } });
    expect(gist.body).toMatchObject({ ok: true });
    expect(gh.requestsTo('/repos/octo-org/api').map(bearer)).toEqual([expect.stringMatching(/^ghs_/)]);
    expect(gh.requestsTo('/gists').map(bearer)).toEqual([expect.stringMatching(/^ghu_/)]);
    expect(gh.mints(61)).toBe(1);
    expect(gh.app.refusedJwts).toEqual([]);
  }, 60_000);
});
