import { afterAll, describe, expect, it } from 'vitest';
import type { Connection, Endpoint, Subscription } from '../../shared/domain/model';
import { SnareHookRepo } from '../../shared/providers/contentsnare/snare-hook';
import { readTagWatches, tagWatchRow } from '../../shared/providers/github/polling/poll-tags';
import type { Item, Key, Store } from '../../shared/ports';
import { ApiKeyRepo } from '../../shared/store/api-key-repo';
import { ConnectionRepo } from '../../shared/store/connection-repo';
import { EndpointRepo } from '../../shared/store/endpoint-repo';
import { SubscriptionRepo } from '../../shared/store/subscription-repo';
import { keys, listingShardCount } from '../../shared/store/table-design';
import { stopTestDynamo, testStore } from '../helpers/dynamo';

/**
 * The listings of configuration, sharded by tenant, on the embedded DynamoDB: each lists every
 * row once and in the order its one partition gave before the shards, reads the rows the
 * previous layout wrote in that one partition, and follows each shard's page cursor to its end.
 */

afterAll(async () => {
  await stopTestDynamo();
});

const t0 = Date.parse('2026-11-28T03:00:00.000Z');
const n = 40;
const pad = (i: number) => String(i).padStart(2, '0');
/** Creation times out of step with the ids, so that an order by id alone would show. */
const createdAt = (i: number) => new Date(t0 + ((i * 7) % n) * 1000).toISOString();

/**
 * The store with small pages (2 rows a Query, as DynamoDB's 1 MB page cuts a large partition),
 * counting the Queries and the partitions they read.
 */
function smallPages(store: Store): { store: Store; partitions: Set<string>; queries: () => number } {
  const partitions = new Set<string>();
  let queries = 0;
  const paged: Store = {
    get: (key: Key, opts) => store.get(key, opts),
    getAll: (keys, opts) => store.getAll(keys, opts),
    put: (item, opts) => store.put(item, opts),
    putAll: (items) => store.putAll(items),
    delete: (key: Key, opts) => store.delete(key, opts),
    query: (input) => {
      queries++;
      partitions.add(input.pk);
      return store.query({ ...input, limit: input.limit ?? 2 });
    },
  };
  return { store: paged, partitions, queries: () => queries };
}

async function fresh() {
  const { store } = await testStore({ now: () => t0 });
  return { raw: store, ...smallPages(store) };
}

/** Rewrites a row as the layout before the shards wrote it: in the one partition `partition` of `index`. */
async function toPreviousLayout(store: Store, key: Key, index: 'gsi1' | 'gsi2', partition: string): Promise<void> {
  const row = (await store.get(key)) as Item;
  await store.put({ ...row, [`${index}pk`]: partition });
}

function connection(i: number): Connection {
  return {
    id: `conn_${pad(i)}`,
    provider: 'github',
    accountLogin: `user${i}`,
    authMethod: 'oauth',
    status: 'connected',
    repositories: [],
    createdAt: createdAt(i),
    updatedAt: createdAt(i),
  };
}

function subscription(i: number, over: Partial<Subscription> = {}): Subscription {
  return {
    id: `sub_${pad(i)}`,
    connectionId: `conn_${pad(i % 8)}`,
    trigger: 'github.new_issue',
    agentId: 'agent-1',
    repository: 'octo/hello',
    filters: {},
    delivery: 'webhook',
    endpointId: `ep_${pad(i % 8)}`,
    createdAt: createdAt(i),
    ...over,
  };
}

function endpoint(i: number): Endpoint {
  return {
    id: `ep_${pad(i)}`,
    connectionId: `conn_${pad(i % 8)}`,
    target: { kind: 'repository', repository: `octo/r${i}` },
    events: ['issues'],
    createdAt: createdAt(i),
  };
}

const sortedBy = <T>(rows: T[], key: (t: T) => string) => [...rows].sort((a, b) => (key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : 0));
const shardsRead = (partitions: Set<string>, prefix: string) => [...partitions].filter((p) => p.startsWith(`${prefix}#`)).length;

describe('sharded listings', () => {
  it('connections: every one listed once, oldest first, the previous layout read and moved by a rewrite', async () => {
    const { raw, store, partitions, queries } = await fresh();
    const all = Array.from({ length: n }, (_, i) => connection(i));
    for (const c of all) await new ConnectionRepo(raw).create(c);
    for (const c of all.slice(0, 6)) await toPreviousLayout(raw, keys.connection(c.id), 'gsi2', 'CONNS');
    const want = sortedBy(all, (c) => `${c.createdAt}#${c.id}`).map((c) => c.id);

    expect((await new ConnectionRepo(store).list()).map((c) => c.id)).toEqual(want);
    expect(shardsRead(partitions, 'CONNS')).toBe(listingShardCount);
    expect(partitions.has('CONNS')).toBe(true);
    // 46 rows over 17 partitions, two a page: a partition of three or more rows is read on its cursor.
    expect(queries()).toBeGreaterThan(listingShardCount + 1);

    await new ConnectionRepo(raw).update('conn_00', (c) => ({ ...c, label: 'moved' }));
    expect((await raw.get(keys.connection('conn_00')))?.gsi2pk).toMatch(/^CONNS#\d+$/);
    const again = await new ConnectionRepo(store).list();
    expect(again.map((c) => c.id)).toEqual(want);
    expect(again.find((c) => c.id === 'conn_00')?.label).toBe('moved');
  });

  it("subscriptions: all of them by connection then age, one connection's from its shard alone, the previous layout read", async () => {
    const { raw, store, partitions } = await fresh();
    const all = Array.from({ length: n }, (_, i) => subscription(i));
    for (const s of all) await new SubscriptionRepo(raw).create(s);
    for (const s of all.filter((_, i) => i % 5 === 0)) await toPreviousLayout(raw, keys.subscription(s.id), 'gsi2', 'SUBS');
    const order = (subs: Subscription[]) => sortedBy(subs, (s) => `${s.connectionId}#${s.createdAt}#${s.id}`).map((s) => s.id);

    expect((await new SubscriptionRepo(store).list()).map((s) => s.id)).toEqual(order(all));
    expect(shardsRead(partitions, 'SUBS')).toBe(listingShardCount);

    partitions.clear();
    const mine = await new SubscriptionRepo(store).list('conn_03');
    expect(mine.map((s) => s.id)).toEqual(order(all.filter((s) => s.connectionId === 'conn_03')));
    expect(mine.some((s) => s.id === 'sub_35')).toBe(true); // written in the previous layout
    expect(shardsRead(partitions, 'SUBS')).toBe(1);
    expect(partitions.has('SUBS')).toBe(true);
  });

  it('polled subscriptions: every shard of the trigger read, the previous partition too, none of another trigger', async () => {
    const { raw, store, partitions } = await fresh();
    const polled = Array.from({ length: 24 }, (_, i) =>
      subscription(i, { delivery: 'polling', trigger: 'github.new_watcher', endpointId: undefined, connectionId: `conn_${pad(i)}` }),
    );
    for (const s of polled) await new SubscriptionRepo(raw).create(s);
    await new SubscriptionRepo(raw).create(subscription(90, { delivery: 'polling', trigger: 'github.new_gist', endpointId: undefined }));
    for (const s of polled.slice(0, 3)) await toPreviousLayout(raw, keys.subscription(s.id), 'gsi1', 'POLL#github.new_watcher');

    expect((await new SubscriptionRepo(store).polled('github.new_watcher')).map((s) => s.id)).toEqual(polled.map((s) => s.id));
    expect(shardsRead(partitions, 'POLL#github.new_watcher')).toBe(listingShardCount);
    expect(new Set(polled.map((s) => s.connectionId)).size).toBe(24);
  });

  it("endpoints: all by connection then id, one connection's from its shard, the previous layout read", async () => {
    const { raw, store, partitions } = await fresh();
    const all = Array.from({ length: n }, (_, i) => endpoint(i));
    for (const e of all) await new EndpointRepo(raw).create(e);
    for (const e of all.slice(-7)) await toPreviousLayout(raw, keys.endpoint(e.id), 'gsi2', 'EPS');
    const order = (eps: Endpoint[]) => sortedBy(eps, (e) => `${e.connectionId}#${e.id}`).map((e) => e.id);

    expect((await new EndpointRepo(store).list()).map((e) => e.id)).toEqual(order(all));
    expect(shardsRead(partitions, 'EPS')).toBe(listingShardCount);
    partitions.clear();
    expect((await new EndpointRepo(store).list('conn_07')).map((e) => e.id)).toEqual(
      order(all.filter((e) => e.connectionId === 'conn_07')),
    );
    expect(shardsRead(partitions, 'EPS')).toBe(1);
  });

  it('scoped keys: every one listed oldest first, the previous layout read, and a disconnect takes the connection off keys in both', async () => {
    const { raw, store } = await fresh();
    for (let i = 0; i < n; i++)
      await new ApiKeyRepo(raw).create(
        { id: `key_${pad(i)}`, label: `k${i}`, connections: [`conn_${pad(i % 4)}`], createdAt: createdAt(i) },
        'h',
      );
    for (let i = 0; i < 8; i++) await toPreviousLayout(raw, keys.apiKey(`key_${pad(i)}`), 'gsi2', 'KEYS');
    const want = sortedBy(
      Array.from({ length: n }, (_, i) => ({ id: `key_${pad(i)}`, at: createdAt(i) })),
      (k) => `${k.at}#${k.id}`,
    ).map((k) => k.id);

    expect((await new ApiKeyRepo(store).list()).map((k) => k.id)).toEqual(want);
    expect(await new ApiKeyRepo(store).removeConnection('conn_00')).toBe(n / 4);
    expect((await new ApiKeyRepo(store).list()).filter((k) => k.connections.includes('conn_00'))).toEqual([]);
  });

  it('collection-service hooks: by connection id, the first of them when bounded, the previous layout read', async () => {
    const { raw, store, partitions } = await fresh();
    for (let i = 0; i < n; i++)
      await new SnareHookRepo(raw).put({
        connectionId: `conn_${pad(i)}`,
        events: ['request_published'],
        tokenSha256: 'ab',
        createdAt: createdAt(i),
      });
    for (const i of [0, 1, 39]) await toPreviousLayout(raw, keys.snareHook(`conn_${pad(i)}`), 'gsi2', 'CSHOOKS');
    const ids = Array.from({ length: n }, (_, i) => `conn_${pad(i)}`);

    expect((await new SnareHookRepo(store).list()).map((h) => h.connectionId)).toEqual(ids);
    expect((await new SnareHookRepo(store).list(5)).map((h) => h.connectionId)).toEqual(ids.slice(0, 5));
    expect(shardsRead(partitions, 'CSHOOKS')).toBe(listingShardCount);
  });

  it('tag watches: every shard and the previous partition read', async () => {
    const { raw, store } = await fresh();
    const subs = Array.from({ length: 20 }, (_, i) => subscription(i, { trigger: 'github.new_tag', connectionId: `conn_${pad(i)}` }));
    for (const s of subs) await raw.put(tagWatchRow({ subscription: s, etags: [], seen: [], updatedAt: createdAt(0) }));
    for (const s of subs.slice(0, 4)) await toPreviousLayout(raw, keys.pollCursor(s.id), 'gsi1', 'POLL#github.new_tag#watch');
    const logger = { debug() {}, info() {}, warn() {}, error() {}, child: () => logger };

    const watches = await readTagWatches({ store, logger } as unknown as Parameters<typeof readTagWatches>[0]);
    expect(watches.map((w) => w.subscription.id)).toEqual(subs.map((s) => s.id));
  });
});
