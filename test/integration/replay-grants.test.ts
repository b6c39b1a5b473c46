import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { Subscription, TriggerEvent } from '../../shared/domain/model';
import { enqueueEvents } from '../../shared/dispatch/fan-out';
import { replayBounds } from '../../shared/events/replay-bounds';
import { ApiKeyRepo } from '../../shared/store/api-key-repo';
import { ConnectionRepo } from '../../shared/store/connection-repo';
import { SubscriptionRepo } from '../../shared/store/subscription-repo';
import { consumerPass } from '../helpers/consumer-pass';
import { stopTestDynamo } from '../helpers/dynamo';
import { FakeAgentRuntime } from '../helpers/fake-agent-runtime';
import { platformApiCaller } from '../helpers/platform-api-caller';
import { testContext, type TestContext } from '../helpers/test-context';

/**
 * History and replay end with what they belonged to, and replay is bounded: written from the
 * side of a key holder who should not get in (a disconnected connection, a deleted
 * subscription, a repository taken off the allow-list, one event replayed hundreds of times).
 */

let runtime: FakeAgentRuntime;
beforeAll(async () => {
  runtime = await FakeAgentRuntime.start();
});
afterAll(async () => {
  await runtime.close();
  await stopTestDynamo();
});
const open: TestContext[] = [];
afterEach(() => {
  for (const t of open.splice(0)) t.close();
  runtime.requests.length = 0;
  runtime.answers.length = 0;
});

/** A connection, its subscription for agent-1 and one delivered event of it, and a scoped key for the connection. */
async function setup(n = 1) {
  const t = await testContext({ AGENT_RUNTIME_URL: runtime.url });
  open.push(t);
  const api = platformApiCaller(t.ctx);
  const pass = () => consumerPass(t.ctx, t.queues.queue);
  const connection = await t.connect();
  const sub: Subscription = {
    id: `sub_${connection.id}`,
    connectionId: connection.id,
    trigger: 'github.new_issue',
    agentId: 'agent-1',
    filters: {},
    delivery: 'webhook',
    createdAt: new Date(t.clock.now()).toISOString(),
  };
  await new SubscriptionRepo(t.ctx.store).create(sub);
  const events: TriggerEvent[] = Array.from({ length: n }, (_, i) => ({
    id: `evt_g${i + 1}`,
    trigger: 'github.new_issue',
    subscriptionId: sub.id,
    agentId: 'agent-1',
    connectionId: connection.id,
    deliveryId: `guid-${i + 1}`,
    occurredAt: '2026-11-22T10:00:00.000Z',
    event: { repository: { full_name: 'octo/hello', owner: { login: 'octo' } }, issue: { number: i + 1 } },
  }));
  await enqueueEvents(t.ctx, events);
  await pass();
  runtime.requests.length = 0;
  const made = await api('POST', '/keys', { label: 'agent', connections: [connection.id] });
  expect(made.status).toBe(201);
  return { t, api, pass, connection, sub, events, key: `Bearer ${made.body.key}`, keyId: made.body.id as string };
}

describe('history and replay after a disconnect', () => {
  it("takes the connection off every key: the key no longer lists, reads or replays the connection's events", async () => {
    const { t, api, connection, key, keyId } = await setup();
    expect((await api('GET', '/events', undefined, key)).body.events).toHaveLength(1);
    const gone = await api('DELETE', `/connections/${connection.id}`);
    expect(gone.status).toBe(200);
    expect(gone.body.keysUpdated).toBe(1);
    expect((await new ApiKeyRepo(t.ctx.store).getWithHash(keyId))?.connections).toEqual([]);
    expect((await api('GET', '/events', undefined, key)).body.events).toEqual([]);
    expect((await api('GET', `/events?connectionId=${connection.id}`, undefined, key)).status).toBe(403);
    const read = await api('GET', '/events/evt_g1', undefined, key);
    const unknown = await api('GET', '/events/evt_never', undefined, key);
    expect(read.status).toBe(404);
    expect(read.body.error.message).toBe(unknown.body.error.message.replace('evt_never', 'evt_g1'));
    expect(JSON.stringify(read.body)).not.toContain(connection.id);
    expect((await api('POST', '/events/evt_g1/replay', undefined, key)).status).toBe(404);
    expect(t.queues.queue.size()).toBe(0);
  });

  it('keeps the history readable with the platform key only, and refuses its replay (409)', async () => {
    const { t, api, connection } = await setup();
    await api('DELETE', `/connections/${connection.id}`);
    const read = await api('GET', '/events/evt_g1');
    expect(read.status).toBe(200);
    expect(read.body).toMatchObject({ id: 'evt_g1', connectionId: connection.id, status: 'delivered' });
    const replay = await api('POST', '/events/evt_g1/replay');
    expect(replay.status).toBe(409);
    expect(replay.body.error).toMatchObject({ code: 'conflict', details: { reason: 'connection_gone' } });
    expect(t.queues.queue.size()).toBe(0);
  });

  it("hides a connection's history from a key that still lists it (a key made while the disconnect ran)", async () => {
    const { t, api, connection, key } = await setup();
    // The connection goes without the disconnect's pass over the keys, as when a key is written in between.
    await new ConnectionRepo(t.ctx.store).delete(connection.id);
    expect((await api('GET', '/events', undefined, key)).body.events).toEqual([]);
    expect((await api('GET', '/events/evt_g1', undefined, key)).status).toBe(404);
    expect((await api('POST', '/events/evt_g1/replay', undefined, key)).status).toBe(404);
  });

  it('refuses a key for a connection that a disconnect removed while the key was being made', async () => {
    const { t, api, connection } = await setup();
    const store = t.ctx.store;
    // The disconnect lands between the key's check of its connections and its write.
    const racing = platformApiCaller({
      ...t.ctx,
      store: {
        ...store,
        get: store.get.bind(store),
        putAll: store.putAll.bind(store),
        delete: store.delete.bind(store),
        query: store.query.bind(store),
        put: async (item, opts) => {
          if (String(item.pk).startsWith('KEY#')) await new ConnectionRepo(store).delete(connection.id);
          return store.put(item, opts);
        },
      },
    });
    const made = await racing('POST', '/keys', { label: 'late', connections: [connection.id] });
    expect(made.status).toBe(400);
    expect(made.body.error.details.fields).toEqual([{ field: 'connections', message: `no connection ${connection.id}` }]);
    expect((await api('GET', '/keys')).body.keys.map((k: { label: string }) => k.label)).toEqual(['agent']);
  });
});

describe('a replay passes the gates of a first delivery', () => {
  it('is refused (409) once its subscription is deleted, and one already queued is dropped, not posted', async () => {
    const { t, api, pass, sub, key } = await setup();
    const queued = await api('POST', '/events/evt_g1/replay', undefined, key);
    expect(queued.status).toBe(202);
    expect((await api('DELETE', `/subscriptions/${sub.id}`, undefined, key)).status).toBe(200);
    await pass();
    expect(runtime.requests).toHaveLength(0);
    expect((await api('GET', `/events/${queued.body.id}`)).body.status).toBe('dropped');
    const refused = await api('POST', '/events/evt_g1/replay', undefined, key);
    expect(refused.status).toBe(409);
    expect(refused.body.error).toMatchObject({ code: 'conflict', details: { reason: 'subscription_gone' } });
    expect(t.queues.queue.size()).toBe(0);
  });

  it("is refused once its repository leaves the connection's allow-list, and one already queued is not posted", async () => {
    const { api, pass, connection, key } = await setup();
    const queued = await api('POST', '/events/evt_g1/replay', undefined, key);
    expect(queued.status).toBe(202);
    expect((await api('PATCH', `/connections/${connection.id}`, { repositories: ['octo/other'] })).status).toBe(200);
    await pass();
    expect(runtime.requests).toHaveLength(0);
    const refused = await api('POST', '/events/evt_g1/replay', undefined, key);
    expect(refused.status).toBe(409);
    expect(refused.body.error.details).toEqual({ reason: 'repository_not_allowed' });
  });

  it('is not posted when its connection is disconnected or suspended after it was queued', async () => {
    const { t, api, pass, connection } = await setup();
    const first = await api('POST', '/events/evt_g1/replay');
    expect(first.status).toBe(202);
    await new ConnectionRepo(t.ctx.store).update(connection.id, (c) => ({ ...c, status: 'suspended' }));
    await pass();
    expect(runtime.requests).toHaveLength(0);
    expect((await api('POST', '/events/evt_g1/replay')).body.error.details).toEqual({ reason: 'connection_inactive' });
    await new ConnectionRepo(t.ctx.store).update(connection.id, (c) => ({ ...c, status: 'connected' }));
    const second = await api('POST', '/events/evt_g1/replay');
    expect(second.status).toBe(202);
    await api('DELETE', `/connections/${connection.id}`);
    // Past the connection gate's 5 s cache, as a container that saw the connection a moment before.
    t.clock.advance(10_000);
    await pass();
    expect(runtime.requests).toHaveLength(0);
    expect((await api('GET', `/events/${second.body.id}`)).body.status).toBe('dropped');
  });

  it('is posted while every gate is open', async () => {
    const { api, pass, key } = await setup();
    const replay = await api('POST', '/events/evt_g1/replay', undefined, key);
    expect(replay.status).toBe(202);
    await pass();
    expect(runtime.events()).toEqual([expect.objectContaining({ id: replay.body.id, replayOf: 'evt_g1' })]);
  });
});

describe('replay is bounded', () => {
  const perEvent = replayBounds.perEvent;

  it(`replays one event at most ${perEvent.max} times in ${perEvent.windowSeconds / 3600} h, then answers 429 saying when the next is allowed`, async () => {
    const { t, api, key } = await setup();
    for (let i = 0; i < perEvent.max; i++) {
      expect((await api('POST', '/events/evt_g1/replay', undefined, key)).status).toBe(202);
      t.clock.advance(60_000);
    }
    const capped = await api('POST', '/events/evt_g1/replay', undefined, key);
    expect(capped.status).toBe(429);
    expect(capped.body.error).toMatchObject({ code: 'replay_limited', details: { limit: 'event', max: perEvent.max } });
    // The first replay lapses out of the window first: 24 h after it, 5 minutes from now.
    const wait = perEvent.windowSeconds - perEvent.max * 60;
    expect(capped.headers['retry-after']).toBe(String(wait));
    expect(capped.body.error.details.retryAfter).toBe(wait);
    expect(Date.parse(capped.body.error.details.nextReplayAt)).toBe(t.clock.now() + wait * 1000);
    // The platform key is held to the same bound for this event.
    expect((await api('POST', '/events/evt_g1/replay')).status).toBe(429);
    expect(t.queues.queue.size()).toBe(perEvent.max);
    t.clock.advance(wait * 1000);
    expect((await api('POST', '/events/evt_g1/replay', undefined, key)).status).toBe(202);
  });

  it('replays the original when asked to replay a replay, and counts it against the original', async () => {
    const { t, api, pass, key } = await setup();
    const first = await api('POST', '/events/evt_g1/replay', undefined, key);
    await pass();
    const again = await api('POST', `/events/${first.body.id}/replay`, undefined, key);
    expect(again.status).toBe(202);
    expect(again.body.replayOf).toBe('evt_g1');
    await pass();
    expect(runtime.events().map((e) => e.replayOf)).toEqual(['evt_g1', 'evt_g1']);
    expect((await api('GET', '/events/evt_g1')).body.replayedBy).toEqual([first.body.id, again.body.id]);
    for (let i = 2; i < perEvent.max; i++) expect((await api('POST', `/events/${first.body.id}/replay`, undefined, key)).status).toBe(202);
    expect((await api('POST', `/events/${again.body.id}/replay`, undefined, key)).status).toBe(429);
    expect(t.queues.queue.size()).toBe(perEvent.max - 2);
  });

  it('admits exactly the bound when many replays of one event race (the count is kept in the table)', async () => {
    const { t, key } = await setup();
    // Two containers: two routers over one table, nothing shared in memory.
    const a = platformApiCaller({ ...t.ctx });
    const b = platformApiCaller({ ...t.ctx });
    const answers = await Promise.all(
      Array.from({ length: 12 }, (_, i) => (i % 2 === 0 ? a : b)('POST', '/events/evt_g1/replay', undefined, key)),
    );
    const statuses = answers.map((r) => r.status);
    expect(statuses.filter((s) => s === 202)).toHaveLength(perEvent.max);
    expect(statuses.every((s) => s === 202 || s === 429 || s === 503)).toBe(true);
    expect(t.queues.queue.size()).toBe(perEvent.max);
  });

  it(`holds one scoped key to ${replayBounds.perScopedKey.max} replays an hour across events`, async () => {
    const max = replayBounds.perScopedKey.max;
    const { t, api, key } = await setup(Math.ceil(max / perEvent.max) + 1);
    let accepted = 0;
    for (let n = 1; accepted < max; n++) {
      for (let i = 0; i < perEvent.max && accepted < max; i++) {
        expect((await api('POST', `/events/evt_g${n}/replay`, undefined, key)).status).toBe(202);
        accepted++;
      }
    }
    const fresh = `evt_g${Math.ceil(max / perEvent.max) + 1}`;
    const capped = await api('POST', `/events/${fresh}/replay`, undefined, key);
    expect(capped.status).toBe(429);
    expect(capped.body.error.details).toMatchObject({ limit: 'key', max });
    expect(Number(capped.headers['retry-after'])).toBeGreaterThan(0);
    // Another key, or the platform key, is not held back by this one.
    expect((await api('POST', `/events/${fresh}/replay`)).status).toBe(202);
    t.clock.advance(replayBounds.perScopedKey.windowSeconds * 1000);
    expect((await api('POST', `/events/${fresh}/replay`, undefined, key)).status).toBe(202);
  }, 120_000);
});
