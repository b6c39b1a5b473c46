import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { githubTools } from '../../shared/providers/github/tools';
import { codeHostAccess } from '../../shared/providers/github/code-host-access';
import { fetchListPage } from '../../shared/providers/github/polling/poll-fetch';
import type { Connection } from '../../shared/domain/model';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { EncryptedSecretStore } from '../../shared/adapters/local/encrypted-secret-store';
import { keys } from '../../shared/store/table-design';
import { invokeTool } from '../../shared/tools/invoke';
import { readStoredToken, writeStoredToken } from '../../shared/store/stored-token';
import { githubAppTestContext, type GitHubAppTestContext } from '../helpers/github-app-context';
import { storeTestConnection } from '../helpers/test-context';

const octoOrg = { login: 'octo-org', id: 7001, type: 'Organization' as const };

async function appConnection(t: GitHubAppTestContext, installationId = 31, login = 'mona'): Promise<Connection> {
  const user = t.fake.app.issueUserToken(login);
  const c = await storeTestConnection(t.ctx, {
    authMethod: 'github_app',
    accountLogin: login,
    // An owner's connection: it acts with the installation's token.
    reach: 'installation',
    installation: {
      id: installationId,
      account: { login: 'octo-org', id: '7001', type: 'Organization' },
      repositorySelection: 'all',
      permissions: { metadata: 'read', issues: 'write' },
      events: ['issues'],
    },
  });
  await writeStoredToken(t.ctx.secrets, c, {
    accessToken: user.accessToken,
    refreshToken: user.refreshToken,
    expiresAt: t.clock.now() + 8 * 3600 * 1000,
    origin: new URL(t.fake.url).origin,
  });
  return c;
}

const bearer = (r: { headers: Record<string, unknown> }) => String(r.headers.authorization ?? '').replace(/^(Bearer|token) /i, '');

describe('GitHub App installation tokens', () => {
  let t: GitHubAppTestContext;
  beforeEach(async () => {
    t = await githubAppTestContext();
    t.fake.app.addInstallation({ id: 31, account: octoOrg });
    t.fake.app.addInstallation({ id: 32, account: { login: 'other-org', id: 7002, type: 'Organization' } });
  });
  afterEach(async () => {
    await t.stop();
  });

  it('many concurrent callers in several containers cost one mint per installation, all given the same token', async () => {
    const containers = Array.from({ length: 4 }, () => t.container());
    const calls = containers.flatMap((c) => Array.from({ length: 15 }, (_, n) => c.installations.token(n % 3 === 0 ? 32 : 31)));
    const tokens = await Promise.all(calls);
    expect(t.fake.mints(31)).toBe(1);
    expect(t.fake.mints(32)).toBe(1);
    expect(new Set(tokens.map((x) => x.token)).size).toBe(2);
    expect(t.fake.app.refusedJwts).toEqual([]);
  });

  it('a token is kept until shortly before it expires, on the injected clock, then minted again once', async () => {
    const { installations } = t.container();
    const first = await installations.token(31);
    t.clock.advance(54 * 60 * 1000);
    expect((await installations.token(31)).token).toBe(first.token);
    // A cold container reads the shared token instead of minting.
    expect((await t.container().installations.token(31)).token).toBe(first.token);
    expect(t.fake.mints(31)).toBe(1);
    t.clock.advance(2 * 60 * 1000);
    const [a, b] = await Promise.all([installations.token(31), t.container().installations.token(31)]);
    expect(a.token).not.toBe(first.token);
    expect(b.token).toBe(a.token);
    expect(t.fake.mints(31)).toBe(2);
  });

  it('the shared token lives in the table sealed (no readable token in the row, none in the secret store), and neither it nor the private key reaches a log line', async () => {
    const { installations } = t.container();
    const minted = await installations.token(31);
    const row = await t.ctx.store.get(keys.appToken(31), { consistent: true });
    expect(row).toMatchObject({ sealed: expect.any(String), ttl: Math.ceil(minted.expiresAt / 1000) });
    expect(JSON.stringify(row)).not.toContain(minted.token);
    expect(await t.sealer.open(String(row?.sealed), 'APPTOKEN#31')).toContain(minted.token);
    expect([...t.secrets.values.keys()].filter((n) => n.includes('app-installations'))).toEqual([]);
    const logs = t.logLines.join('\n');
    expect(logs).not.toContain(minted.token);
    expect(logs).not.toContain(t.fake.app.privateKeyPem.split('\n')[1]);
    expect(logs).toContain('installation token minted');
  });

  it("a sealed token copied into another installation's row does not open there: that installation's token is minted for it", async () => {
    const { installations } = t.container();
    const of31 = await installations.token(31);
    const row = await t.ctx.store.get(keys.appToken(31), { consistent: true });
    await t.ctx.store.put({ ...keys.appToken(32), sealed: row?.sealed, ttl: row?.ttl });
    const of32 = await t.container().installations.token(32);
    expect(of32.token).not.toBe(of31.token);
    expect(t.fake.mints(32)).toBe(1);
  });

  it('a row sealed under another key (the key was replaced) is minted anew, not an error', async () => {
    const { installations } = t.container();
    const first = await installations.token(31);
    const dir = mkdtempSync(join(tmpdir(), 'other-key-'));
    const other = EncryptedSecretStore.open({ dir }).tokenSealer();
    const sealed = await other.seal(
      JSON.stringify({ token: first.token, expiresAt: first.expiresAt, origin: first.origin }),
      'APPTOKEN#31',
    );
    rmSync(dir, { recursive: true, force: true });
    await t.ctx.store.put({ ...keys.appToken(31), sealed, ttl: Math.ceil(first.expiresAt / 1000) });
    const next = await t.container().installations.token(31);
    expect(next.token).not.toBe(first.token);
    expect(t.fake.mints(31)).toBe(2);
  });

  it('a token the code host refuses (401) is replaced by a fresh mint, once', async () => {
    const { installations } = t.container();
    const first = await installations.token(31);
    t.fake.app.installationTokens.delete(first.token);
    const next = await installations.token(31, { rejected: first.token });
    expect(next.token).not.toBe(first.token);
    expect(t.fake.mints(31)).toBe(2);
  });

  it('a removed installation answers reconnect_required, naming the installation', async () => {
    const { installations } = t.container();
    await expect(installations.token(404)).rejects.toMatchObject({ code: 'reconnect_required', message: expect.stringContaining('404') });
  });

  it('a github_app connection reaches the code host with the installation token; its user token only for /user and /gists', async () => {
    const c = await appConnection(t);
    const access = await codeHostAccess(t.ctx, c);
    expect(access.token).toMatch(/^ghs_/);
    expect((await access.asUser?.())?.token).toMatch(/^ghu_/);
  });

  it('tool steps on a github_app connection act with the installation token, gists and stars with the user token', async () => {
    const c = await appConnection(t);
    const repo = await invokeTool(
      t.ctx,
      { toolId: 'github.get_repository', connectionId: c.id, input: { owner: 'octo-org', repo: 'api' } },
      [githubTools],
    );
    expect(repo).toMatchObject({ ok: true, data: { full_name: 'octo-org/api' } });
    const gist = await invokeTool(
      t.ctx,
      { toolId: 'github.create_gist', connectionId: c.id, input: { files: { 'a.md': { content: 'hi' } } } },
      [githubTools],
    );
    expect(gist).toMatchObject({ ok: true });
    const star = await invokeTool(t.ctx, { toolId: 'github.star_repo', connectionId: c.id, input: { owner: 'octo-org', repo: 'api' } }, [
      githubTools,
    ]);
    expect(star).toMatchObject({ ok: true });
    expect(t.fake.requestsTo('/repos/octo-org/api').map(bearer)).toEqual([expect.stringMatching(/^ghs_/)]);
    expect(t.fake.requestsTo('/gists').map(bearer)).toEqual([expect.stringMatching(/^ghu_/)]);
    expect(t.fake.requestsTo('/user/starred/octo-org/api').map(bearer)).toEqual([expect.stringMatching(/^ghu_/)]);
  });

  it("the poller's and sweep's reads on a github_app connection go with the installation token, the user's own lists with the user token", async () => {
    const c = await appConnection(t);
    expect(await fetchListPage(t.ctx, c, '/repos/octo-org/api/tags?per_page=100')).toMatchObject({ kind: 'items' });
    expect(await fetchListPage(t.ctx, c, '/gists?per_page=100')).toMatchObject({ kind: 'items' });
    expect(t.fake.requestsTo('/repos/octo-org/api/tags').map(bearer)).toEqual([expect.stringMatching(/^ghs_/)]);
    expect(t.fake.requestsTo('/gists').map(bearer)).toEqual([expect.stringMatching(/^ghu_/)]);
  });

  it('a suspended or revoked github_app connection sends nothing', async () => {
    const c = await appConnection(t);
    await expect(codeHostAccess(t.ctx, { ...c, status: 'suspended' })).rejects.toMatchObject({ code: 'forbidden' });
    await expect(codeHostAccess(t.ctx, { ...c, status: 'revoked' })).rejects.toMatchObject({ code: 'reconnect_required' });
    expect(t.fake.mints(31)).toBe(0);
  });

  it("the user token of a github_app connection is refreshed with the App's client credentials", async () => {
    const c = await appConnection(t);
    const held = await readStoredToken(t.ctx.secrets, c);
    if (!held) throw new Error('the user token was stored above');
    await writeStoredToken(t.ctx.secrets, c, { ...held, expiresAt: t.clock.now() + 60_000 });
    const user = await t.ctx.tokens.credential?.(c, { actingAs: 'user' });
    expect(user?.accessToken).toMatch(/^ghu_/);
    const refresh = t.fake.requestsTo('/login/oauth/access_token').map((r) => new URLSearchParams(r.body));
    expect(refresh.map((p) => [p.get('grant_type'), p.get('client_id')])).toEqual([['refresh_token', t.fake.app.clientId]]);
  });
});
