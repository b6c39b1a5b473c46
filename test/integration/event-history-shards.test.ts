import { CreateTableCommand, DescribeTableCommand } from '@aws-sdk/client-dynamodb';
import { afterAll, describe, expect, it } from 'vitest';
import { DynamoStore } from '../../shared/adapters/aws/dynamo-store';
import { ensureTable, waitActive } from '../../shared/adapters/aws/ensure-table';
import type { TriggerEvent } from '../../shared/domain/model';
import type { Item, Store } from '../../shared/ports';
import {
  eventShard,
  listEvents,
  listingSortKey,
  queuedSummary,
  readSummary,
  summaryRow,
  withStatus,
  type EventSummary,
  type ListFilter,
} from '../../shared/store/event-history';
import { eventShardCount, keys, ttlIn } from '../../shared/store/table-design';
import { stopTestDynamo, TestClock, testStore } from '../helpers/dynamo';

afterAll(async () => {
  await stopTestDynamo();
});

const t0 = Date.parse('2026-11-27T10:00:00.000Z');

function event(n: number, over: Partial<TriggerEvent> = {}): TriggerEvent {
  return {
    id: `evt_s${String(n).padStart(3, '0')}`,
    trigger: 'github.new_issue',
    subscriptionId: 'sub_1',
    agentId: 'agent-1',
    connectionId: 'conn_a',
    deliveryId: `guid-${n}`,
    occurredAt: '2026-11-27T10:00:00.000Z',
    event: { repository: { full_name: 'octo/hello', owner: { login: 'octo' } }, issue: { number: n } },
    ...over,
  };
}

/** Event `n` queued `n` seconds after t0, so that its number is its place in time. */
const queuedAt = (n: number) => t0 + n * 1000;
const rowOf = (e: TriggerEvent, n: number) => summaryRow(queuedSummary(e, queuedAt(n)), queuedAt(n));

/** The row the history wrote before the listing was sharded: every event in gsi2 `EVTS`. */
function previousLayoutRow(e: TriggerEvent, n: number): Item {
  const summary = queuedSummary(e, queuedAt(n));
  const sortKey = listingSortKey(summary.queuedAt, summary.eventId);
  return {
    ...summary,
    ...keys.eventHistory(e.id),
    gsi1pk: keys.eventsOfConnection(e.connectionId),
    gsi1sk: sortKey,
    gsi2pk: keys.legacyEventsList,
    gsi2sk: sortKey,
    ttl: ttlIn(queuedAt(n), 30 * 24 * 3600),
  };
}

async function freshStore(): Promise<Store> {
  return (await testStore(new TestClock(t0 + 3_600_000))).store;
}

/** Every page of a listing, `limit` at a time, by the cursor each page answers. */
async function allPages(store: Store, filter: ListFilter, limit: number): Promise<string[][]> {
  const pages: string[][] = [];
  let before: string | undefined;
  for (let i = 0; i < 100; i++) {
    const page = await listEvents(store, { filter, limit, budget: 500, ...(before !== undefined ? { before } : {}) });
    pages.push(page.events.map((e) => e.eventId));
    if (page.before === undefined) return pages;
    before = page.before;
  }
  throw new Error('the listing did not end');
}

const newestFirst = (ns: number[]) => [...ns].sort((a, b) => b - a).map((n) => event(n).id);

describe('event history over shards', () => {
  it('spreads the events over the shards and lists them newest first, page by page, none missed or repeated', async () => {
    const store = await freshStore();
    const ns = Array.from({ length: 60 }, (_, i) => i + 1);
    await store.putAll(ns.map((n) => rowOf(event(n), n)));
    const shards = new Set(ns.map((n) => eventShard(event(n).id)));
    expect(shards.size).toBeGreaterThanOrEqual(eventShardCount / 2);
    const pages = await allPages(store, {}, 7);
    expect(pages.flat()).toEqual(newestFirst(ns));
    expect(pages.slice(0, -1).every((p) => p.length === 7)).toBe(true);
    // A shard holds what the listing filters on, not what a rewrite changes.
    const [listed] = (await store.query({ index: 'gsi3', pk: keys.eventsShard(eventShard(event(1).id)) })).items;
    expect(listed).toMatchObject({ eventId: expect.any(String), trigger: 'github.new_issue', connectionId: 'conn_a' });
    expect(listed).not.toHaveProperty('status');
    expect(listed).not.toHaveProperty('attempts');
  });

  it('holds a page cursor while new events arrive in any shard', async () => {
    const store = await freshStore();
    await store.putAll([1, 2, 3, 4, 5, 6].map((n) => rowOf(event(n), n)));
    const first = await listEvents(store, { filter: {}, limit: 3, budget: 500 });
    expect(first.events.map((e) => e.eventId)).toEqual(newestFirst([6, 5, 4]));
    await store.putAll([7, 8, 9].map((n) => rowOf(event(n), n)));
    const second = await listEvents(store, { filter: {}, limit: 3, budget: 500, before: first.before as string });
    expect(second.events.map((e) => e.eventId)).toEqual(newestFirst([3, 2, 1]));
  });

  it('filters across shards: the status from each summary, the rest from what the shard holds', async () => {
    const store = await freshStore();
    const ns = Array.from({ length: 30 }, (_, i) => i + 1);
    const e = (n: number) =>
      event(n, {
        ...(n % 3 === 0 ? { trigger: 'github.new_pull_request' } : {}),
        ...(n % 5 === 0 ? { agentId: 'agent-2' } : {}),
        ...(n % 4 === 0 ? { event: { repository: { full_name: 'octo/other', owner: { login: 'octo' } } } } : {}),
      });
    await store.putAll(ns.map((n) => rowOf(e(n), n)));
    const delivered = ns.filter((n) => n % 2 === 1);
    await store.putAll(
      delivered.map((n) => summaryRow(withStatus(queuedSummary(e(n), queuedAt(n)), 'delivered', queuedAt(n) + 500), queuedAt(n))),
    );
    expect((await allPages(store, { status: 'delivered' }, 4)).flat()).toEqual(newestFirst(delivered));
    expect((await allPages(store, { trigger: 'github.new_pull_request' }, 4)).flat()).toEqual(newestFirst(ns.filter((n) => n % 3 === 0)));
    expect((await allPages(store, { agentId: 'agent-2', status: 'delivered' }, 2)).flat()).toEqual(newestFirst([5, 15, 25]));
    expect((await allPages(store, { repository: 'OCTO/other' }, 3)).flat()).toEqual(newestFirst(ns.filter((n) => n % 4 === 0)));
  });

  it('stops a narrow filter at the read budget with a cursor to go on, and finds the rest from there', async () => {
    const store = await freshStore();
    const ns = Array.from({ length: 40 }, (_, i) => i + 1);
    await store.putAll(ns.map((n) => rowOf(event(n, n === 3 || n === 38 ? { agentId: 'agent-9' } : {}), n)));
    const first = await listEvents(store, { filter: { agentId: 'agent-9' }, limit: 5, budget: 10 });
    expect(first.events.map((e) => e.eventId)).toEqual([event(38).id]);
    expect(first.before).toBe(listingSortKey(queuedAt(31), event(31).id));
    const rest = await allPages(store, { agentId: 'agent-9' }, 5);
    expect(rest.flat()).toEqual(newestFirst([38, 3]));
  });

  it("merges the connections a key opens from their own partitions, and leaves out every other connection's", async () => {
    const store = await freshStore();
    const conn = (n: number) => ['conn_a', 'conn_b', 'conn_c'][n % 3] as string;
    const ns = Array.from({ length: 24 }, (_, i) => i + 1);
    await store.putAll(ns.map((n) => rowOf(event(n, { connectionId: conn(n) }), n)));
    const mine = ns.filter((n) => conn(n) !== 'conn_c');
    expect((await allPages(store, { connections: ['conn_a', 'conn_b'] }, 5)).flat()).toEqual(newestFirst(mine));
    expect((await allPages(store, { connections: ['conn_c'] }, 5)).flat()).toEqual(newestFirst(ns.filter((n) => conn(n) === 'conn_c')));
  });

  it('lists rows of the previous layout (one partition for every event) in time order with the new ones, until a rewrite moves them to their shard', async () => {
    const store = await freshStore();
    const ns = Array.from({ length: 12 }, (_, i) => i + 1);
    const old = ns.filter((n) => n % 2 === 0);
    await store.putAll(ns.map((n) => (old.includes(n) ? previousLayoutRow(event(n), n) : rowOf(event(n), n))));
    expect((await allPages(store, {}, 5)).flat()).toEqual(newestFirst(ns));
    expect((await allPages(store, { connections: ['conn_a'] }, 5)).flat()).toEqual(newestFirst(ns));
    // The dispatch rewrites an old row as it delivers the event: it leaves the old partition for its shard.
    const moved = event(4);
    const before = (await readSummary(store, moved.id)) as EventSummary;
    await store.put(summaryRow(withStatus(before, 'delivered', queuedAt(20)), queuedAt(20)));
    const row = await store.get(keys.eventHistory(moved.id));
    expect(row).not.toHaveProperty('gsi2pk');
    expect(row).toMatchObject({ gsi3pk: keys.eventsShard(eventShard(moved.id)) });
    const listed = await listEvents(store, { filter: {}, limit: 50, budget: 500 });
    expect(listed.events.map((e) => e.eventId)).toEqual(newestFirst(ns));
    expect(listed.events.find((e) => e.eventId === moved.id)?.status).toBe('delivered');
  });
});

describe('a table made before the shards', () => {
  const previousDesign = (tableName: string) =>
    new CreateTableCommand({
      TableName: tableName,
      BillingMode: 'PAY_PER_REQUEST',
      AttributeDefinitions: ['pk', 'sk', 'gsi1pk', 'gsi1sk', 'gsi2pk', 'gsi2sk'].map((AttributeName) => ({
        AttributeName,
        AttributeType: 'S',
      })),
      KeySchema: [
        { AttributeName: 'pk', KeyType: 'HASH' },
        { AttributeName: 'sk', KeyType: 'RANGE' },
      ],
      GlobalSecondaryIndexes: ['gsi1', 'gsi2'].map((name) => ({
        IndexName: name,
        KeySchema: [
          { AttributeName: `${name}pk`, KeyType: 'HASH' },
          { AttributeName: `${name}sk`, KeyType: 'RANGE' },
        ],
        Projection: { ProjectionType: 'ALL' },
      })),
    });
  const indexNames = async (client: import('@aws-sdk/client-dynamodb').DynamoDBClient, tableName: string) =>
    ((await client.send(new DescribeTableCommand({ TableName: tableName }))).Table?.GlobalSecondaryIndexes ?? [])
      .map((ix) => ix.IndexName)
      .sort();

  it('gets the new index at start, keeps every item, and lists its events from the shards and the old partition', async () => {
    const { client } = await testStore();
    const tableName = `prev-${Date.now()}`;
    await client.send(previousDesign(tableName));
    await waitActive(client, tableName);
    const store = new DynamoStore(tableName, client, new TestClock(t0 + 3_600_000));
    await store.putAll([previousLayoutRow(event(1), 1), { pk: 'CONN#conn_a', sk: 'CONN', gsi2pk: 'CONNS', gsi2sk: 'x', label: 'kept' }]);
    await ensureTable(client, tableName);
    expect(await indexNames(client, tableName)).toEqual(['gsi1', 'gsi2', 'gsi3']);
    expect(await store.get({ pk: 'CONN#conn_a', sk: 'CONN' })).toMatchObject({ label: 'kept' });
    await store.putAll([rowOf(event(2), 2)]);
    expect((await allPages(store, {}, 5)).flat()).toEqual(newestFirst([1, 2]));
  });

  it('finishes a rebuild cut short after the table was dropped, from the copy it left', async () => {
    const { client } = await testStore();
    const tableName = `cut-${Date.now()}`;
    await client.send(previousDesign(`${tableName}.rebuild`));
    await waitActive(client, `${tableName}.rebuild`);
    const copy = new DynamoStore(`${tableName}.rebuild`, client, new TestClock(t0));
    await copy.putAll([previousLayoutRow(event(1), 1)]);
    await ensureTable(client, tableName);
    expect(await indexNames(client, tableName)).toEqual(['gsi1', 'gsi2', 'gsi3']);
    const store = new DynamoStore(tableName, client, new TestClock(t0 + 3_600_000));
    expect((await readSummary(store, event(1).id))?.eventId).toBe(event(1).id);
    await expect(client.send(new DescribeTableCommand({ TableName: `${tableName}.rebuild` }))).rejects.toThrow();
  });
});
