import {
  BatchGetItemCommand,
  BatchWriteItemCommand,
  type BatchWriteItemCommandOutput,
  type DynamoDBClient,
} from '@aws-sdk/client-dynamodb';
import { afterAll, describe, expect, it } from 'vitest';
import { DynamoStore } from '../../shared/adapters/aws/dynamo-store';
import { ConditionFailedError } from '../../shared/domain/errors';
import { getCoalesced } from '../../shared/store/coalesced-gets';
import { putCoalesced } from '../../shared/store/coalesced-puts';
import { ttlIn } from '../../shared/store/table-design';
import { TestClock, stopTestDynamo, testStore } from '../helpers/dynamo';

afterAll(stopTestDynamo);

type Send = (command: unknown) => Promise<unknown>;

/** A store on the real server whose every call `answer` takes first (the batch calls answered as a throttled table does). */
function throttledStore(
  client: DynamoDBClient,
  tableName: string,
  answer: (command: unknown, send: Send) => Promise<unknown>,
): DynamoStore {
  const send = client.send.bind(client) as Send;
  const throttled = Object.assign(Object.create(client), { send: (command: unknown) => answer(command, send) });
  return new DynamoStore(tableName, throttled, { now: () => Date.now() });
}

describe('DynamoStore on the embedded DynamoDB', () => {
  it('conditional put ifNotExists lets exactly one of ten concurrent writers win', async () => {
    const { store } = await testStore();
    const results = await Promise.allSettled(
      Array.from({ length: 10 }, (_, i) => store.put({ pk: 'CLAIM#x', sk: 'CLAIM', n: i }, { ifNotExists: true })),
    );
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
    const rejected = results.filter((r): r is PromiseRejectedResult => r.status === 'rejected');
    expect(rejected).toHaveLength(9);
    for (const r of rejected) expect(r.reason).toBeInstanceOf(ConditionFailedError);
  });

  it('treats an item whose ttl has passed as absent, and lets ifNotExists overwrite it', async () => {
    const clock = new TestClock();
    const { store } = await testStore(clock);
    await store.put({ pk: 'A', sk: 'A', ttl: ttlIn(clock.now(), 60) });
    expect(await store.get({ pk: 'A', sk: 'A' })).toBeDefined();
    clock.advance(61_000);
    expect(await store.get({ pk: 'A', sk: 'A' })).toBeUndefined();
    await expect(store.put({ pk: 'A', sk: 'A', v: 2 }, { ifNotExists: true })).resolves.toBeUndefined();
    expect(await store.get({ pk: 'A', sk: 'A' })).toMatchObject({ v: 2 });
  });

  it('rejects a stale optimistic write with ifVersion', async () => {
    const { store } = await testStore();
    await store.put({ pk: 'B', sk: 'B', version: 1 });
    await store.put({ pk: 'B', sk: 'B', version: 2 }, { ifVersion: 1 });
    await expect(store.put({ pk: 'B', sk: 'B', version: 2 }, { ifVersion: 1 })).rejects.toBeInstanceOf(ConditionFailedError);
  });

  it('queries a partition by sort-key prefix and pages with a cursor', async () => {
    const { store } = await testStore();
    for (let i = 0; i < 5; i++) await store.put({ pk: 'P', sk: `S#${i}` });
    await store.put({ pk: 'P', sk: 'OTHER' });
    const first = await store.query({ pk: 'P', skPrefix: 'S#', limit: 3 });
    expect(first.items.map((i) => i.sk)).toEqual(['S#0', 'S#1', 'S#2']);
    const second = await store.query({ pk: 'P', skPrefix: 'S#', cursor: first.cursor });
    expect(second.items.map((i) => i.sk)).toEqual(['S#3', 'S#4']);
  });

  it('queries the gsi1 index', async () => {
    const { store } = await testStore();
    await store.put({ pk: 'X#1', sk: 'X', gsi1pk: 'ALL', gsi1sk: '2' });
    await store.put({ pk: 'X#2', sk: 'X', gsi1pk: 'ALL', gsi1sk: '1' });
    const page = await store.query({ pk: 'ALL', index: 'gsi1' });
    expect(page.items.map((i) => i.pk)).toEqual(['X#2', 'X#1']);
  });

  it('queries the gsi2 index by sort-key prefix', async () => {
    const { store } = await testStore();
    await store.put({ pk: 'Y#1', sk: 'Y', gsi2pk: 'L', gsi2sk: 'c1#a' });
    await store.put({ pk: 'Y#2', sk: 'Y', gsi2pk: 'L', gsi2sk: 'c2#b' });
    const page = await store.query({ pk: 'L', index: 'gsi2', skPrefix: 'c2#' });
    expect(page.items.map((i) => i.pk)).toEqual(['Y#2']);
  });

  it('delete returns the old item and ifExists fails on a missing one', async () => {
    const { store } = await testStore();
    await store.put({ pk: 'D', sk: 'D', a: 1 });
    expect(await store.delete({ pk: 'D', sk: 'D' })).toMatchObject({ a: 1 });
    await expect(store.delete({ pk: 'D', sk: 'D' }, { ifExists: true })).rejects.toBeInstanceOf(ConditionFailedError);
  });

  it('putAll writes more items than one BatchWriteItem takes, and of two items with one key keeps the later', async () => {
    const { store } = await testStore();
    const items = Array.from({ length: 60 }, (_, i) => ({ pk: `M#${i}`, sk: 'M', n: i }));
    await store.putAll([...items, { pk: 'M#7', sk: 'M', n: 'later' }]);
    const page = await Promise.all(items.map((i) => store.get({ pk: i.pk, sk: i.sk })));
    expect(page.map((i) => i?.n)).toEqual(items.map((i) => (i.n === 7 ? 'later' : i.n)));
  });

  it('putAll sends again what the table left unprocessed, and fails naming how many when it never takes them', async () => {
    const { client, tableName } = await testStore();
    // The real server, with the first BatchWriteItem answered as a throttled table does: only part written.
    let batches = 0;
    let withhold: 'once' | 'always' = 'once';
    const store = throttledStore(client, tableName, async (command, send) => {
      if (!(command instanceof BatchWriteItemCommand)) return send(command);
      batches++;
      const requests = command.input.RequestItems?.[tableName] ?? [];
      if (withhold === 'once' && batches > 1) return send(command);
      if (withhold === 'always') return { UnprocessedItems: { [tableName]: requests } };
      const [first, ...rest] = requests;
      if (first) await send(new BatchWriteItemCommand({ RequestItems: { [tableName]: [first] } }));
      return { UnprocessedItems: rest.length > 0 ? { [tableName]: rest } : {} } satisfies Partial<BatchWriteItemCommandOutput>;
    });
    await store.putAll([1, 2, 3].map((n) => ({ pk: `U#${n}`, sk: 'U' })));
    expect(batches).toBe(2);
    for (const n of [1, 2, 3]) expect(await store.get({ pk: `U#${n}`, sk: 'U' })).toBeDefined();

    withhold = 'always';
    batches = 0;
    await expect(store.putAll([4, 5].map((n) => ({ pk: `U#${n}`, sk: 'U' })))).rejects.toThrow(/2 of 2 items left unprocessed/);
    expect(batches).toBe(6);
  });
});

describe('getAll on the embedded DynamoDB', () => {
  it('answers in the order asked, more keys than one BatchGetItem takes, undefined where none is live, a key asked twice twice', async () => {
    const clock = new TestClock();
    const { store } = await testStore(clock);
    const items = Array.from({ length: 130 }, (_, i) => ({ pk: `G#${i}`, sk: 'G', n: i }));
    await store.putAll(items);
    await store.put({ pk: 'G#expiring', sk: 'G', ttl: ttlIn(clock.now(), 60) });
    clock.advance(61_000);
    const asked = [
      ...items.map(({ pk, sk }) => ({ pk, sk })).reverse(),
      { pk: 'G#none', sk: 'G' },
      { pk: 'G#expiring', sk: 'G' },
      { pk: 'G#3', sk: 'G' },
    ];
    const found = await store.getAll(asked);
    expect(found.map((i) => i?.n)).toEqual([...items.map((i) => i.n).reverse(), undefined, undefined, 3]);
  });

  it('asks again for what the table left unprocessed, and fails naming how many when it never answers them', async () => {
    const { client, tableName } = await testStore();
    let calls = 0;
    let withhold: 'once' | 'always' = 'once';
    const store = throttledStore(client, tableName, async (command, send) => {
      if (!(command instanceof BatchGetItemCommand)) return send(command);
      calls++;
      const asked = command.input.RequestItems?.[tableName];
      const keys = asked?.Keys ?? [];
      if (withhold === 'always') return { Responses: { [tableName]: [] }, UnprocessedKeys: { [tableName]: asked } };
      if (calls > 1) return send(command);
      // A throttled table answers part of the keys and leaves the rest unprocessed.
      const [first, ...rest] = keys;
      if (!first) return send(command);
      const answered = (await send(new BatchGetItemCommand({ RequestItems: { [tableName]: { ...asked, Keys: [first] } } }))) as {
        Responses?: Record<string, unknown[]>;
      };
      return { Responses: answered.Responses, UnprocessedKeys: { [tableName]: { ...asked, Keys: rest } } };
    });
    await store.putAll([1, 2, 3].map((n) => ({ pk: `P#${n}`, sk: 'P', n })));
    const found = await store.getAll([1, 2, 3].map((n) => ({ pk: `P#${n}`, sk: 'P' })));
    expect(found.map((i) => i?.n)).toEqual([1, 2, 3]);
    expect(calls).toBe(2);

    withhold = 'always';
    calls = 0;
    await expect(store.getAll([1, 2].map((n) => ({ pk: `P#${n}`, sk: 'P' })))).rejects.toThrow(/2 of 2 keys left unprocessed/);
    expect(calls).toBe(6);
  });
});

describe('reads coalesced within one turn of the event loop', () => {
  it('reads made in the same turn are one getAll, each caller answered with its own item; a read in a later turn is another', async () => {
    const { store } = await testStore();
    await store.putAll([1, 2, 3].map((n) => ({ pk: `R#${n}`, sk: 'R', n })));
    const calls: number[] = [];
    const getAll = store.getAll.bind(store);
    store.getAll = (keys, opts) => {
      calls.push(keys.length);
      return getAll(keys, opts);
    };
    const found = await Promise.all([1, 2, 3, 4].map((n) => getCoalesced(store, { pk: `R#${n}`, sk: 'R' })));
    expect(found.map((i) => i?.n)).toEqual([1, 2, 3, undefined]);
    expect((await getCoalesced(store, { pk: 'R#2', sk: 'R' }))?.n).toBe(2);
    expect(calls).toEqual([4, 1]);
  });

  it('a failed read is told to every caller of its batch, and the next batch reads again', async () => {
    const { store } = await testStore();
    await store.put({ pk: 'RF#1', sk: 'RF', n: 1 });
    const getAll = store.getAll.bind(store);
    let fail = true;
    store.getAll = (keys, opts) => {
      if (fail) throw new Error('table unavailable');
      return getAll(keys, opts);
    };
    const results = await Promise.allSettled([
      getCoalesced(store, { pk: 'RF#1', sk: 'RF' }),
      getCoalesced(store, { pk: 'RF#2', sk: 'RF' }),
    ]);
    expect(results.map((r) => r.status)).toEqual(['rejected', 'rejected']);
    fail = false;
    expect((await getCoalesced(store, { pk: 'RF#1', sk: 'RF' }))?.n).toBe(1);
  });
});

describe('puts coalesced within one turn of the event loop', () => {
  it('puts made in the same turn are one putAll; a put in a later turn is another', async () => {
    const { store } = await testStore();
    const calls: number[] = [];
    const putAll = store.putAll.bind(store);
    store.putAll = (items) => {
      calls.push(items.length);
      return putAll(items);
    };
    await Promise.all([
      putCoalesced(store, [{ pk: 'C#1', sk: 'C' }]),
      putCoalesced(store, [
        { pk: 'C#2', sk: 'C' },
        { pk: 'C#3', sk: 'C' },
      ]),
    ]);
    await putCoalesced(store, [{ pk: 'C#4', sk: 'C' }]);
    expect(calls).toEqual([3, 1]);
    for (const n of [1, 2, 3, 4]) expect(await store.get({ pk: `C#${n}`, sk: 'C' })).toBeDefined();
  });

  it('a failed write is told to every caller of its batch, and the next batch is written again', async () => {
    const { store } = await testStore();
    const putAll = store.putAll.bind(store);
    let fail = true;
    store.putAll = (items) => {
      if (fail) throw new Error('table unavailable');
      return putAll(items);
    };
    const results = await Promise.allSettled([
      putCoalesced(store, [{ pk: 'F#1', sk: 'F' }]),
      putCoalesced(store, [{ pk: 'F#2', sk: 'F' }]),
    ]);
    expect(results.map((r) => r.status)).toEqual(['rejected', 'rejected']);
    fail = false;
    await putCoalesced(store, [{ pk: 'F#1', sk: 'F' }]);
    expect(await store.get({ pk: 'F#1', sk: 'F' })).toBeDefined();
  });
});
