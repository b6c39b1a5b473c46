import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { routes as platformRoutes } from '../../functions/platform-api/routes';
import { loadProviderExamples } from '../../shared/wiring/provider-examples';
import { createRouter } from '../../shared/http/router';
import { pollOnce } from '../../shared/polling/poll-once';
import { sourceCursorKey } from '../../shared/providers/github/polling/source-cursor';
import { stopTestDynamo } from '../helpers/dynamo';
import { FakeGitHub } from '../helpers/fake-github-server';
import { testContext, testPlatformKey, type TestContext } from '../helpers/test-context';

const token = 'ghp_sharedSourceToken00000000000000000000';
const other = 'ghp_sharedSourceOther00000000000000000000';
let github: FakeGitHub;
beforeAll(async () => {
  github = await FakeGitHub.start();
  github.addUser(token, 'gister');
  github.addUser(other, 'second');
});
afterAll(async () => {
  await github.close();
  await stopTestDynamo();
});
const open: TestContext[] = [];
afterEach(() => {
  for (const t of open.splice(0)) t.close();
  github.gists.clear();
  github.repos.clear();
  github.requests.length = 0;
  github.refuseHooks.clear();
});

/** Organization repositories are polled where the token may not make the organization's webhook. */
function refuseOrgHooks(...orgs: string[]) {
  for (const o of orgs) github.refuseHooks.set(`orgs/${o}`, 403);
}

function gist(id: string, createdAt: string) {
  return {
    id,
    created_at: createdAt,
    updated_at: createdAt,
    description: `gist ${id}`,
    public: true,
    html_url: `https://gist.example/${id}`,
    files: {},
    owner: { login: 'gister' },
  };
}
function repo(id: number, owner: string, createdAt: string) {
  return {
    id,
    name: `r${id}`,
    full_name: `${owner}/r${id}`,
    created_at: createdAt,
    private: false,
    owner: { login: owner, id: 7, type: 'User' },
  };
}

async function setup() {
  const t = await testContext({ GITHUB_API_URL: github.url });
  open.push(t);
  const connection = await t.connect({ accountLogin: 'gister' }, token);
  const router = createRouter(platformRoutes(t.ctx, { examples: loadProviderExamples }), { platformApiKey: async () => testPlatformKey });
  const subscribe = async (body: Record<string, unknown>, connectionId = connection.id) => {
    const res = await router({
      method: 'POST',
      path: '/subscriptions',
      headers: { authorization: `Bearer ${testPlatformKey}` },
      query: new URLSearchParams(),
      body: Buffer.from(JSON.stringify({ connectionId, ...body })),
    });
    expect(res.status, String(res.body)).toBe(201);
    return JSON.parse(String(res.body)) as Record<string, any>;
  };
  const announced = async () =>
    (await t.receiveAll(1000))
      .map((m) => JSON.parse(m.body) as Record<string, any>)
      .map((e) => `${e.agentId}:${e.event.gist?.id ?? e.event.repository?.name}`)
      .sort();
  const listReads = () => github.requests.filter((r) => r.path === '/gists' || r.path.endsWith('/repos')).length;
  return { t, connection, subscribe, announced, listReads };
}

describe('one read per distinct source, fanned out to its subscriptions', () => {
  it("five agents on the same connection's gists: one request a round, each agent told of a new gist once", async () => {
    const { t, subscribe, announced, listReads } = await setup();
    github.gists.set('gister', [gist('old', '2026-01-01T00:00:00Z')]);
    for (let i = 0; i < 5; i++) await subscribe({ trigger: 'github.new_gist', agentId: `agent-${i}` });
    github.requests.length = 0;
    expect(await pollOnce(t.ctx)).toMatchObject({ subscriptions: 5, sources: 1, notModified: 1, announced: 0 });
    expect(listReads()).toBe(1);

    github.gists.set('gister', [gist('new', '2026-01-02T00:00:00Z'), ...github.gists.get('gister')!]);
    github.requests.length = 0;
    expect(await pollOnce(t.ctx)).toMatchObject({ sources: 1, announced: 5 });
    expect(listReads()).toBe(1);
    expect(await announced()).toEqual([0, 1, 2, 3, 4].map((i) => `agent-${i}:new`));
    expect(await pollOnce(t.ctx)).toMatchObject({ announced: 0, notModified: 1 });
  });

  it('a subscription made later is not told of what existed when it was made; the earlier one is told of everything since its own', async () => {
    const { t, subscribe, announced } = await setup();
    github.gists.set('gister', [gist('g1', '2026-01-01T00:00:00Z')]);
    await subscribe({ trigger: 'github.new_gist', agentId: 'early' });
    expect(await pollOnce(t.ctx)).toMatchObject({ announced: 0 });
    // Created between the early one's last round and the late one's subscription.
    github.gists.set('gister', [gist('g2', '2026-01-02T00:00:00Z'), ...github.gists.get('gister')!]);
    await subscribe({ trigger: 'github.new_gist', agentId: 'late' });
    expect(await pollOnce(t.ctx)).toMatchObject({ announced: 1 });
    expect(await announced()).toEqual(['early:g2']);
    github.gists.set('gister', [gist('g3', '2026-01-03T00:00:00Z'), ...github.gists.get('gister')!]);
    expect(await pollOnce(t.ctx)).toMatchObject({ announced: 2 });
    expect(await announced()).toEqual(['early:g3', 'late:g3']);
  });

  it('a subscription from before shared cursors (its own cursor only) goes on where it stood', async () => {
    const { t, connection, subscribe, announced } = await setup();
    github.gists.set('gister', [gist('g1', '2026-01-01T00:00:00Z')]);
    await subscribe({ trigger: 'github.new_gist', agentId: 'old' });
    await t.ctx.store.delete(sourceCursorKey(connection.id, '/gists?per_page=100'));
    github.gists.set('gister', [gist('g2', '2026-01-02T00:00:00Z'), ...github.gists.get('gister')!]);
    expect(await pollOnce(t.ctx)).toMatchObject({ announced: 1 });
    expect(await announced()).toEqual(['old:g2']);
    expect(await t.ctx.store.get(sourceCursorKey(connection.id, '/gists?per_page=100'))).toBeDefined();
    expect(await pollOnce(t.ctx)).toMatchObject({ announced: 0, notModified: 1 });
  });

  it('a connection whose rate budget runs low has its other sources deferred, logged and counted; other connections are read', async () => {
    const { t, connection, subscribe } = await setup();
    const second = await t.connect({ accountLogin: 'second' }, other);
    refuseOrgHooks('o1', 'o2', 'o3');
    for (const org of ['o1', 'o2', 'o3']) await subscribe({ trigger: 'github.new_repository', organization: org, agentId: 'a' });
    await subscribe({ trigger: 'github.new_gist', agentId: 'a' });
    await subscribe({ trigger: 'github.new_gist', agentId: 'b' }, second.id);
    // The code host reports each token's remaining budget (`X-RateLimit-Remaining`): the first one's is nearly spent.
    t.ctx.fetch = async (url, init) => {
      const res = await fetch(url, init);
      const auth = new Headers(init?.headers).get('authorization') ?? '';
      const headers = new Headers(res.headers);
      headers.set('x-ratelimit-remaining', auth.endsWith(token) ? '3' : '4000');
      headers.set('x-ratelimit-reset', '1767229200');
      return new Response(res.status === 304 ? null : await res.arrayBuffer(), { status: res.status, headers });
    };
    github.requests.length = 0;
    const report = await pollOnce(t.ctx, { perConnection: 1 });
    expect(report).toMatchObject({ subscriptions: 5, sources: 5, deferred: 3, failed: 0 });
    const byToken = (tk: string) => github.requests.filter((r) => r.headers.authorization === `Bearer ${tk}`).length;
    expect(byToken(token)).toBe(1);
    expect(byToken(other)).toBe(1);
    expect(t.metrics.counts.get('poll_deferred')).toBe(3);
    expect(t.logLines.some((l) => l.includes('rate budget low') && l.includes(connection.id))).toBe(true);
  });

  it("a new repository in one organization is read once for two agents, and not mixed with another organization's", async () => {
    const { t, subscribe, announced, listReads } = await setup();
    refuseOrgHooks('o1', 'o2');
    github.repos.set('o1', [repo(1, 'o1', '2026-01-01T00:00:00Z')]);
    await subscribe({ trigger: 'github.new_repository', organization: 'o1', agentId: 'x' });
    await subscribe({ trigger: 'github.new_repository', organization: 'o1', agentId: 'y' });
    await subscribe({ trigger: 'github.new_repository', organization: 'o2', agentId: 'z' });
    github.repos.set('o1', [repo(2, 'o1', '2026-02-01T00:00:00Z'), ...github.repos.get('o1')!]);
    github.requests.length = 0;
    expect(await pollOnce(t.ctx)).toMatchObject({ subscriptions: 3, sources: 2, announced: 2 });
    expect(listReads()).toBe(2);
    expect(await announced()).toEqual(['x:r2', 'y:r2']);
  });
});
