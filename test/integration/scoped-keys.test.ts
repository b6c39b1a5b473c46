import { describe, expect, it } from 'vitest';
import { createRouter } from '../../shared/http/router';
import { resolveScopedKey } from '../../shared/keys/scoped-keys';
import { keys } from '../../shared/store/table-design';
import { toolRoutes } from '../../shared/tools/tool-routes';
import { allProviderTools } from '../../shared/wiring/provider-tools';
import { useFakeCodeHost } from '../helpers/code-host-setup';
import { platformApiCaller } from '../helpers/platform-api-caller';
import { testPlatformKey } from '../helpers/test-context';

const token = 'ghp_scopedKeysTestToken00000000000000000';
const host = useFakeCodeHost({ [token]: 'octocat' }, { env: { PUBLIC_URL: 'https://hooks.example.test' } });

async function setup() {
  const t = await host.context();
  const call = platformApiCaller(t.ctx);
  const mine = await t.connect({ label: 'mine' }, token);
  const other = await t.connect({ label: 'other' }, token);
  const tools = createRouter(toolRoutes(t.ctx, allProviderTools()), {
    platformApiKey: async () => testPlatformKey,
    scopedKey: (presented) => resolveScopedKey(t.ctx, presented),
  });
  const invoke = async (bearer: string, connectionId: string) => {
    const res = await tools({
      method: 'POST',
      path: '/tools/github.list_gists_for_user/invoke',
      headers: { authorization: `Bearer ${bearer}` },
      query: new URLSearchParams(),
      body: Buffer.from(JSON.stringify({ connectionId, input: {} })),
    });
    return { status: res.status, body: JSON.parse(String(res.body)) };
  };
  return { t, call, mine, other, invoke };
}

describe('scoped keys', () => {
  it('are shown once and stored as the hash of their secret only', async () => {
    const { t, call, mine } = await setup();
    const made = await call('POST', '/keys', { label: 'agent', connections: [mine.id] });
    expect(made.status).toBe(201);
    expect(made.body).toMatchObject({ label: 'agent', connections: [mine.id] });
    const key = made.body.key as string;
    expect(key).toMatch(/^aik_[a-z0-9]{20}\.[A-Za-z0-9_-]{43}$/);
    const row = await t.ctx.store.get(keys.apiKey(made.body.id));
    expect(JSON.stringify(row)).not.toContain(key.split('.')[1]);
    const listed = await call('GET', '/keys');
    expect(JSON.stringify(listed.body)).not.toContain(key.split('.')[1]);
    expect(listed.body.keys).toHaveLength(1);
  });

  it('names the field of each bad input and makes no key', async () => {
    const { call, mine } = await setup();
    const fields = async (body: unknown) =>
      ((await call('POST', '/keys', body)).body.error?.details?.fields ?? []).map((f: { field: string }) => f.field);
    expect(await fields({ connections: [mine.id] })).toEqual(['label']);
    expect(await fields({ label: 'x', connections: [] })).toEqual(['connections']);
    expect(await fields({ label: 'x', connections: ['conn_missing'] })).toEqual(['connections']);
    expect(await fields({ label: 'x', connections: [mine.id], expiresAt: 'tomorrow' })).toEqual(['expiresAt']);
    expect(await fields({ label: 'x', connections: [mine.id], expiresAt: '2000-01-01T00:00:00Z' })).toEqual(['expiresAt']);
    expect(await fields({ label: 'x', connections: [mine.id], scopes: ['all'] })).toEqual(['(body)']);
    expect((await call('GET', '/keys')).body.keys).toEqual([]);
  });

  it('open their own connections only: other connections get 403 and nothing runs', async () => {
    const { call, mine, other, invoke, t } = await setup();
    const key = (await call('POST', '/keys', { label: 'agent', connections: [mine.id] })).body.key as string;
    const before = host.github.requests.length;
    const refused = await invoke(key, other.id);
    expect(refused.status).toBe(403);
    expect(refused.body.error.code).toBe('forbidden');
    expect(host.github.requests.length).toBe(before);
    const allowed = await invoke(key, mine.id);
    expect(allowed.status, JSON.stringify(allowed.body)).toBe(200);
    // Log lines name the key by its id, never the key.
    const lines = t.logLines.join('\n');
    expect(lines).toContain(key.slice(4, 24));
    expect(lines).not.toContain(key.split('.')[1]);
  });

  it("limit subscriptions to the key's connections and never reach connection or key management", async () => {
    const { call, mine, other } = await setup();
    const key = (await call('POST', '/keys', { label: 'agent', connections: [mine.id] })).body.key as string;
    const asKey = (method: string, path: string, body?: unknown) => call(method, path, body, `Bearer ${key}`);
    const sub = { trigger: 'github.new_issue', agentId: 'a', repository: 'octocat/hello-world' };
    expect((await asKey('POST', '/subscriptions', { ...sub, connectionId: other.id })).status).toBe(403);
    const made = await asKey('POST', '/subscriptions', { ...sub, connectionId: mine.id });
    expect(made.status, JSON.stringify(made.body)).toBe(201);
    const theirs = await call('POST', '/subscriptions', { ...sub, connectionId: other.id });
    expect(theirs.status).toBe(201);
    expect((await asKey('GET', '/subscriptions')).body.subscriptions.map((s: { id: string }) => s.id)).toEqual([made.body.id]);
    // Another connection's subscription is answered as an unknown one, without naming its connection.
    for (const method of ['GET', 'DELETE']) {
      const res = await asKey(method, `/subscriptions/${theirs.body.id}`);
      expect(res.status).toBe(404);
      expect(res.body).toEqual({ error: { code: 'not_found', message: `No subscription ${theirs.body.id}` } });
    }
    expect((await call('GET', `/subscriptions/${theirs.body.id}`)).status).toBe(200);
    for (const [method, path] of [
      ['GET', '/connections'],
      ['GET', `/connections/${mine.id}`],
      ['DELETE', `/connections/${mine.id}`],
      ['GET', '/keys'],
    ] as const) {
      const res = await asKey(method, path);
      expect(res.status, `${method} ${path}`).toBe(403);
    }
    expect((await call('GET', `/connections/${mine.id}`)).status).toBe(200);
  });

  it('answer 401 once revoked or expired, at once', async () => {
    const { call, mine, invoke, t } = await setup();
    const expiring = await call('POST', '/keys', {
      label: 'short',
      connections: [mine.id],
      expiresAt: new Date(t.clock.now() + 60_000).toISOString(),
    });
    expect((await invoke(expiring.body.key, mine.id)).status).toBe(200);
    t.clock.advance(60_001);
    expect((await invoke(expiring.body.key, mine.id)).status).toBe(401);

    const revoked = await call('POST', '/keys', { label: 'revoked', connections: [mine.id] });
    expect((await invoke(revoked.body.key, mine.id)).status).toBe(200);
    expect((await call('DELETE', `/keys/${revoked.body.id}`)).body).toEqual({ id: revoked.body.id, revoked: true });
    expect((await invoke(revoked.body.key, mine.id)).status).toBe(401);
    expect((await call('DELETE', `/keys/${revoked.body.id}`)).status).toBe(404);
    // A forged secret under a real id is no key either.
    const live = (await call('POST', '/keys', { label: 'live', connections: [mine.id] })).body.key as string;
    expect((await invoke(`${live.split('.')[0]}.${'A'.repeat(43)}`, mine.id)).status).toBe(401);
  });
});
