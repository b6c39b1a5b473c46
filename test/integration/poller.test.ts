import { describe, expect, it } from 'vitest';
import { pollOnce } from '../../shared/polling/poll-once';
import { sourceCursorKey } from '../../shared/providers/github/polling/source-cursor';
import { keys } from '../../shared/store/table-design';
import { SubscriptionRepo } from '../../shared/store/subscription-repo';
import { useFakeCodeHost } from '../helpers/code-host-setup';
import { platformApiCaller } from '../helpers/platform-api-caller';

const token = 'ghp_pollerTestToken000000000000000000000000';
const host = useFakeCodeHost({ [token]: 'gister' });

/** As `GET /user/repos` answers: the owner is always present (a simple-user object). */
function repo(id: number, name: string, createdAt: string) {
  return { id, name, full_name: `gister/${name}`, created_at: createdAt, private: false, owner: { login: 'gister', id: 7, type: 'User' } };
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

async function setup() {
  const t = await host.context();
  const connection = await t.connect({ accountLogin: 'gister' }, token);
  const call = platformApiCaller(t.ctx);
  const subscribe = async (body: Record<string, unknown>) =>
    (await call('POST', '/subscriptions', { connectionId: connection.id, agentId: 'agent-g', ...body })).body;
  const queuedEvents = async () => (await t.receiveAll()).map((m) => JSON.parse(m.body) as Record<string, any>);
  return { t, connection, subscribe, queuedEvents };
}

describe('poller (gists and new repositories of the account)', () => {
  it('never announces what existed at subscription time, and announces a new gist once', async () => {
    const { t, subscribe, queuedEvents } = await setup();
    host.github.gists.set('gister', [gist('old-2', '2026-01-02T00:00:00Z'), gist('old-1', '2026-01-01T00:00:00Z')]);
    const sub = await subscribe({ trigger: 'github.new_gist' });
    expect(sub.delivery).toBe('polling');
    expect(await pollOnce(t.ctx)).toMatchObject({ subscriptions: 1, announced: 0 });
    expect(await queuedEvents()).toEqual([]);

    host.github.gists.set('gister', [gist('new-1', '2026-01-03T00:00:00Z'), ...host.github.gists.get('gister')!]);
    expect(await pollOnce(t.ctx)).toMatchObject({ announced: 1 });
    const events = await queuedEvents();
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({
      trigger: 'github.new_gist',
      subscriptionId: sub.id,
      agentId: 'agent-g',
      deliveryId: `poll:${sub.id}:new-1`,
    });
    expect(await pollOnce(t.ctx)).toMatchObject({ announced: 0 });
  });

  it('moves its cursor only after the enqueue: a death in between announces the item again under the same event id, and a failed enqueue loses nothing', async () => {
    const { t, subscribe, queuedEvents } = await setup();
    host.github.gists.set('gister', [gist('old-1', '2026-01-01T00:00:00Z')]);
    const sub = await subscribe({ trigger: 'github.new_gist' });
    await pollOnce(t.ctx);
    host.github.gists.set('gister', [gist('new-1', '2026-01-03T00:00:00Z'), ...host.github.gists.get('gister')!]);

    // The queue refuses: nothing announced, the cursor stays, the next round announces it.
    const queue = t.ctx.queue;
    t.ctx.queue = { sendBatch: async () => Promise.reject(new Error('queue unavailable')) };
    expect(await pollOnce(t.ctx)).toMatchObject({ announced: 0, failed: 1 });
    t.ctx.queue = queue;

    // The round dies after its enqueue, before its cursor write (the source's, shared by its subscriptions).
    const store = t.ctx.store;
    const cursorKey = sourceCursorKey(sub.connectionId, '/gists?per_page=100');
    t.ctx.store = {
      ...store,
      get: store.get.bind(store),
      query: store.query.bind(store),
      delete: store.delete.bind(store),
      put: async (item, o) => (item.pk === cursorKey.pk ? Promise.reject(new Error('process died')) : store.put(item, o)),
    };
    expect(await pollOnce(t.ctx)).toMatchObject({ failed: 1 });
    t.ctx.store = store;
    expect(await pollOnce(t.ctx)).toMatchObject({ announced: 1 });
    const events = await queuedEvents();
    expect(events).toHaveLength(2);
    expect(events[0]!.id).toBe(events[1]!.id);
    expect(await pollOnce(t.ctx)).toMatchObject({ announced: 0 });
  });

  it('sends the stored ETag and treats 304 as nothing new', async () => {
    const { t, subscribe, queuedEvents } = await setup();
    host.github.gists.set('gister', [gist('g1', '2026-01-01T00:00:00Z')]);
    await subscribe({ trigger: 'github.new_gist' });
    const baseline = host.github.requests.at(-1)!;
    expect(baseline.path).toBe('/gists');
    expect(baseline.headers['if-none-match']).toBeUndefined();
    const report = await pollOnce(t.ctx);
    expect(report).toMatchObject({ notModified: 1, announced: 0 });
    const conditional = host.github.requests.at(-1)!;
    expect(conditional.headers['if-none-match']).toMatch(/^"[0-9a-f]+"$/);
    expect(await queuedEvents()).toEqual([]);
  });

  it('records a baseline instead of announcing when a polled subscription has no cursor', async () => {
    const { t, subscribe, queuedEvents } = await setup();
    host.github.gists.set('gister', [gist('g1', '2026-01-01T00:00:00Z')]);
    const sub = await subscribe({ trigger: 'github.new_gist' });
    await t.ctx.store.delete(keys.pollCursor(sub.id));
    host.github.gists.set('gister', [gist('g2', '2026-01-02T00:00:00Z'), gist('g1', '2026-01-01T00:00:00Z')]);
    expect(await pollOnce(t.ctx)).toMatchObject({ announced: 0 });
    expect(await t.ctx.store.get(keys.pollCursor(sub.id))).toBeDefined();
    expect(await queuedEvents()).toEqual([]);
  });

  it("announces a new repository of the user's account", async () => {
    const { t, subscribe, queuedEvents } = await setup();
    host.github.repos.set('gister', [repo(1, 'old', '2026-01-01T00:00:00Z')]);
    await subscribe({ trigger: 'github.new_repository' });
    host.github.repos.set('gister', [repo(2, 'new', '2026-02-01T00:00:00Z'), ...host.github.repos.get('gister')!]);
    expect(await pollOnce(t.ctx)).toMatchObject({ announced: 1 });
    const events = await queuedEvents();
    expect(events.map((e) => e.trigger)).toEqual(['github.new_repository']);
    expect(host.github.requests.some((r) => r.path === '/user/repos' && r.query.get('affiliation') === 'owner')).toBe(true);
  });

  it('keeps polling the other subscriptions when one fails', async () => {
    const { t, subscribe } = await setup();
    await subscribe({ trigger: 'github.new_gist' });
    // A second connection whose token the code host now refuses.
    const broken = await t.connect({ accountLogin: 'ghost' }, 'ghp_refused0000000000000000000000000000000');
    await new SubscriptionRepo(t.ctx.store).create({
      id: 'sub_broken',
      connectionId: broken.id,
      trigger: 'github.new_gist',
      agentId: 'x',
      filters: {},
      delivery: 'polling',
      createdAt: new Date().toISOString(),
    });
    const report = await pollOnce(t.ctx);
    expect(report).toMatchObject({ subscriptions: 2, failed: 1, notModified: 1 });
  });
});
