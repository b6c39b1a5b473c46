import { afterAll, describe, expect, it } from 'vitest';
import { ConditionFailedError } from '../../shared/domain/errors';
import { ttlIn } from '../../shared/store/table-design';
import { TestClock, stopTestDynamo, testStore } from '../helpers/dynamo';

afterAll(stopTestDynamo);

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
});
