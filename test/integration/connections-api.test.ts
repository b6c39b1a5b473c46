import { describe, expect, it } from 'vitest';
import { routes as platformRoutes } from '../../functions/platform-api/routes';
import { loadProviderExamples } from '../../shared/wiring/provider-examples';
import { secretNames } from '../../shared/domain/model';
import { guardedFetch, type Resolver } from '../../shared/http/guarded-fetch';
import { createRouter } from '../../shared/http/router';
import { EndpointRepo } from '../../shared/store/endpoint-repo';
import { FakeGitHub } from '../helpers/fake-github-server';
import { testPlatformKey } from '../helpers/test-context';
import { useFakeCodeHost } from '../helpers/code-host-setup';
import { platformApiCaller } from '../helpers/platform-api-caller';

const token = 'github_pat_11AAAAAAA0abcdefghijklmnopqrstuvwxyz0123456789';
const host = useFakeCodeHost({ [token]: 'octocat' }, { env: { PUBLIC_URL: 'https://hooks.example.test' } });

async function setup() {
  const t = await host.context();
  const answers: string[] = [];
  const call = platformApiCaller(t.ctx, { onAnswer: (body) => answers.push(body) });
  return { t, call, answers };
}

describe('connections API (token connections)', () => {
  it('validates the token at GET /user, records the login, stores the token as a secret and never answers it', async () => {
    const { t, call, answers } = await setup();
    const created = await call('POST', '/connections', { provider: 'github', token, label: 'work' });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({
      provider: 'github',
      accountLogin: 'octocat',
      label: 'work',
      authMethod: 'token',
      status: 'connected',
      repositories: [],
    });
    const userCall = host.github.requests.find((r) => r.path === '/user');
    expect(userCall?.headers.authorization).toBe(`Bearer ${token}`);
    expect(
      JSON.parse(t.secrets.values.get(secretNames.connectionToken(created.body as { id: string; provider: 'github' }))!).accessToken,
    ).toBe(token);
    expect((await call('GET', `/connections/${created.body.id}`)).body).toMatchObject({ id: created.body.id, accountLogin: 'octocat' });
    expect((await call('GET', '/connections')).body.connections).toHaveLength(1);
    for (const a of answers) expect(a).not.toContain(token);
    for (const l of t.logLines) expect(l).not.toContain(token);
  });

  it('connects to an enterprise server at its own API base, checking the token there', async () => {
    const enterprise = await FakeGitHub.start();
    try {
      enterprise.addUser(token, 'ghe-user');
      const { call } = await setup();
      const created = await call('POST', '/connections', { provider: 'github', token, apiBaseUrl: `${enterprise.url}/` });
      expect(created.status).toBe(201);
      expect(created.body).toMatchObject({ accountLogin: 'ghe-user', apiBaseUrl: enterprise.url });
      expect(enterprise.requests.map((r) => r.path)).toContain('/user');
      // Where the token goes cannot be changed afterwards.
      const moved = await call('PATCH', `/connections/${created.body.id}`, { apiBaseUrl: 'https://elsewhere.example.com/api/v3' });
      expect(moved.status).toBe(400);
      expect(moved.body.error.message).toContain('apiBaseUrl');
      expect((await call('GET', `/connections/${created.body.id}`)).body.apiBaseUrl).toBe(enterprise.url);
    } finally {
      await enterprise.close();
    }
  });

  it.each([
    ['http://github.example.com/api/v3', 'https'],
    ['https://user:pw@host.github.example.com/api/v3', 'credentials'],
    ['https://169.254.169.254/latest', 'link-local'],
    // No internal address (docs/security.md, section 3): the same endpoints in other spellings, and other never-reachable literals.
    ['https://[::ffff:169.254.169.254]/latest', 'metadata'],
    ['https://[::ffff:a9fe:a9fe]/latest', 'metadata'],
    ['https://[64:ff9b::a9fe:a9fe]/latest', 'metadata'],
    ['https://[fd00:ec2::254]/latest', 'metadata'],
    ['https://2852039166/latest', 'metadata'],
    ['https://[fe80::1]/api/v3', 'link-local'],
    ['https://0.0.0.0/api/v3', 'unspecified'],
    ['https://[::]/api/v3', 'unspecified'],
    ['https://224.0.0.1/api/v3', 'multicast'],
    ['not a url', 'URL'],
  ])('refuses the enterprise base %s before sending the token anywhere', async (apiBaseUrl, why) => {
    const { call, t } = await setup();
    const before = host.github.requests.length;
    const r = await call('POST', '/connections', { provider: 'github', token, apiBaseUrl });
    expect(r.status).toBe(400);
    expect(r.body.error.details.fields[0].field).toBe('apiBaseUrl');
    expect(r.body.error.message).toContain(why);
    expect(host.github.requests.length).toBe(before);
    expect(t.secrets.values.size).toBe(0);
  });

  it('refuses an enterprise base whose name resolves to a private or metadata address when the token is checked, storing nothing', async () => {
    const { t } = await setup();
    const resolve: Resolver = async (host) => [{ address: host.startsWith('meta') ? '169.254.169.254' : '10.0.0.5', family: 4 }];
    const ctx = {
      ...t.ctx,
      fetch: guardedFetch({ trustedOrigins: [host.github.url], allowLoopback: false, allowedPrivateHosts: [], resolve }),
    };
    const router = createRouter(platformRoutes(ctx, { examples: loadProviderExamples }), { platformApiKey: async () => testPlatformKey });
    for (const [apiBaseUrl, why] of [
      ['https://ghe.corp.internal/api/v3', 'private'],
      ['https://metadata.google.internal/computeMetadata', 'metadata'],
    ] as const) {
      const res = await router({
        method: 'POST',
        path: '/connections',
        headers: { authorization: `Bearer ${testPlatformKey}`, 'content-type': 'application/json' },
        query: new URLSearchParams(),
        body: Buffer.from(JSON.stringify({ provider: 'github', token, apiBaseUrl })),
      });
      const body = JSON.parse(String(res.body)) as { error: { code: string; message: string } };
      expect(res.status, apiBaseUrl).toBe(403);
      expect(body.error).toMatchObject({ code: 'forbidden', message: expect.stringContaining(why) });
    }
    expect(t.secrets.values.size).toBe(0);
  });

  it('refuses a token the code host refuses with a 400 naming the problem, storing nothing', async () => {
    const { t, call } = await setup();
    const res = await call('POST', '/connections', { provider: 'github', token: 'ghp_revokedtoken00000000000000000000000' });
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('invalid_input');
    expect(res.body.error.message).toMatch(/token.*refused by the code host/);
    expect(t.secrets.values.size).toBe(0);
    expect((await call('GET', '/connections')).body.connections).toEqual([]);
  });

  it('names missing fields and sends the collection service to OAuth', async () => {
    const { call } = await setup();
    const missing = await call('POST', '/connections', { provider: 'github' });
    expect(missing.status).toBe(400);
    expect(missing.body.error.details.fields.map((f: { field: string }) => f.field)).toContain('token');
    const snare = await call('POST', '/connections', { provider: 'contentsnare', token: 'x' });
    expect(snare.status).toBe(400);
    expect(snare.body.error.message).toMatch(/OAuth only/);
  });

  it('requires the platform key', async () => {
    const { call } = await setup();
    expect((await call('GET', '/connections', undefined, 'Bearer wrong')).status).toBe(401);
    expect((await call('POST', '/connections', { provider: 'github', token }, '')).status).toBe(401);
  });

  it('answers 404 for an unknown connection', async () => {
    const { call } = await setup();
    expect((await call('GET', '/connections/conn_nope')).status).toBe(404);
    expect((await call('PATCH', '/connections/conn_nope', { label: 'x' })).status).toBe(404);
    expect((await call('DELETE', '/connections/conn_nope')).status).toBe(404);
  });

  it('PATCH sets the label and the repository allow-list, naming a malformed entry', async () => {
    const { call } = await setup();
    const { body: c } = await call('POST', '/connections', { provider: 'github', token });
    const patched = await call('PATCH', `/connections/${c.id}`, {
      label: 'renamed',
      repositories: ['octo-org/api', 'Octo-Org/API', 'me/site'],
    });
    expect(patched.status).toBe(200);
    expect(patched.body).toMatchObject({ label: 'renamed', repositories: ['octo-org/api', 'me/site'] });
    const bad = await call('PATCH', `/connections/${c.id}`, { repositories: ['ok/repo', 'not-a-repo'] });
    expect(bad.status).toBe(400);
    expect(bad.body.error.details.fields[0].field).toBe('repositories.1');
    const cleared = await call('PATCH', `/connections/${c.id}`, { repositories: [] });
    expect(cleared.body.repositories).toEqual([]);
  });

  it('DELETE removes the subscriptions, their hooks at the code host, the token and the connection', async () => {
    const { t, call } = await setup();
    const { body: c } = await call('POST', '/connections', { provider: 'github', token });
    const s1 = await call('POST', '/subscriptions', {
      connectionId: c.id,
      trigger: 'github.new_issue',
      agentId: 'a1',
      repository: 'octocat/one',
    });
    const s2 = await call('POST', '/subscriptions', {
      connectionId: c.id,
      trigger: 'github.new_star',
      agentId: 'a2',
      repository: 'octocat/two',
    });
    expect([s1.status, s2.status]).toEqual([201, 201]);
    expect(host.github.hooksOf('repos/octocat/one')).toHaveLength(1);
    expect(host.github.hooksOf('repos/octocat/two')).toHaveLength(1);
    const res = await call('DELETE', `/connections/${c.id}`);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ deleted: true, subscriptionsDeleted: 2, hooksDeleted: 2, warnings: [] });
    expect(host.github.hooksOf('repos/octocat/one')).toHaveLength(0);
    expect(host.github.hooksOf('repos/octocat/two')).toHaveLength(0);
    expect(t.secrets.values.size).toBe(0);
    expect(await new EndpointRepo(t.ctx.store).list()).toEqual([]);
    expect((await call('GET', '/subscriptions')).body.subscriptions).toEqual([]);
    expect((await call('GET', `/connections/${c.id}`)).status).toBe(404);
  });

  it('DELETE reports a hook the code host would not delete, and still disconnects', async () => {
    const { t, call } = await setup();
    const { body: c } = await call('POST', '/connections', { provider: 'github', token });
    await call('POST', '/subscriptions', { connectionId: c.id, trigger: 'github.new_issue', agentId: 'a1', repository: 'octocat/locked' });
    host.github.refuseHooks.set('repos/octocat/locked', 403);
    try {
      const res = await call('DELETE', `/connections/${c.id}`);
      expect(res.status).toBe(200);
      expect(res.body.warnings.join(' ')).toMatch(/Could not delete the webhook/);
      expect(t.secrets.values.has(secretNames.connectionToken({ id: c.id, provider: 'github' }))).toBe(false);
    } finally {
      host.github.refuseHooks.delete('repos/octocat/locked');
    }
  });

  it('calls the revoke callback at disconnect', async () => {
    const t = await host.context();
    const revoked: string[] = [];
    const call = platformApiCaller(t.ctx, { routes: { revoke: async (c) => void revoked.push(c.id) } });
    const c = await t.connect({}, token);
    expect((await call('DELETE', `/connections/${c.id}`)).status).toBe(200);
    expect(revoked).toEqual([c.id]);
  });
});
