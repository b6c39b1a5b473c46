import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import { AppError } from '../../shared/domain/errors';
import { realSleep, type Store } from '../../shared/ports';
import { acquireLease, releaseLease, withLease } from '../../shared/store/lease';
import { stopTestDynamo, TestClock, testStore } from '../helpers/dynamo';

let store: Store;
let clock: TestClock;
beforeEach(async () => {
  clock = new TestClock();
  ({ store } = await testStore(clock));
});
afterAll(async () => {
  await stopTestDynamo();
});

describe('lease row', () => {
  it('is held by one owner at a time, released only by its holder, and expires by itself', async () => {
    const a = await acquireLease(store, clock, 'test#1', 'a', 30);
    expect(a).toBeDefined();
    expect(await acquireLease(store, clock, 'test#1', 'b', 30)).toBeUndefined();
    // After expiry someone else may take it; the old holder's release then changes nothing.
    clock.advance(31_000);
    const b = await acquireLease(store, clock, 'test#1', 'b', 30);
    expect(b).toBeDefined();
    expect(await releaseLease(store, clock, a!)).toBe(false);
    expect(await acquireLease(store, clock, 'test#1', 'c', 30)).toBeUndefined();
    expect(await releaseLease(store, clock, b!)).toBe(true);
    expect(await acquireLease(store, clock, 'test#1', 'c', 30)).toBeDefined();
  });

  it('is not released by another owner naming it', async () => {
    const held = await acquireLease(store, clock, 'test#2', 'a', 30);
    expect(await releaseLease(store, clock, { name: 'test#2', owner: 'b', fence: held!.fence + 1 })).toBe(false);
    expect(await acquireLease(store, clock, 'test#2', 'b', 30)).toBeUndefined();
    expect(await store.get({ pk: 'LEASE#test#2', sk: 'LEASE' })).toMatchObject({ owner: 'a', version: held!.fence });
  });
});

describe('withLease', () => {
  it('runs the holders of one name one after another', async () => {
    let inside = 0;
    let most = 0;
    const order: number[] = [];
    await Promise.all(
      [1, 2, 3, 4].map((n) =>
        // Holders that take real time, waited for in real time.
        withLease(
          { store, clock, sleep: realSleep },
          'endpoint#e1',
          async () => {
            inside++;
            most = Math.max(most, inside);
            await new Promise((r) => setTimeout(r, 20));
            order.push(n);
            inside--;
          },
          { waitMs: 5 },
        ),
      ),
    );
    expect(most).toBe(1);
    expect(order.sort()).toEqual([1, 2, 3, 4]);
    // Released: the name is free again.
    expect(await acquireLease(store, clock, 'endpoint#e1', 'next', 30)).toBeDefined();
  });

  it('leaves alone a lease another owner took after its own expired', async () => {
    await withLease(
      { store, clock, sleep: clock.sleep },
      'endpoint#e2',
      async () => {
        clock.advance(31_000);
        expect(await acquireLease(store, clock, 'endpoint#e2', 'other', 30)).toBeDefined();
      },
      { ttlSeconds: 30 },
    );
    expect(await acquireLease(store, clock, 'endpoint#e2', 'third', 30)).toBeUndefined();
    expect(await store.get({ pk: 'LEASE#endpoint#e2', sk: 'LEASE' })).toMatchObject({ owner: 'other' });
  });

  it('answers conflict when the lease stays held, and releases after fn throws', async () => {
    const held = await acquireLease(store, clock, 'endpoint#e3', 'holder', 30);
    const e = await withLease({ store, clock, sleep: clock.sleep }, 'endpoint#e3', async () => 'ran', { attempts: 2, waitMs: 1 }).catch(
      (x: unknown) => x,
    );
    expect(e).toBeInstanceOf(AppError);
    expect((e as AppError).code).toBe('conflict');
    await releaseLease(store, clock, held!);
    await expect(
      withLease({ store, clock, sleep: clock.sleep }, 'endpoint#e3', async () => {
        throw new Error('boom');
      }),
    ).rejects.toThrow('boom');
    expect(await acquireLease(store, clock, 'endpoint#e3', 'after', 30)).toBeDefined();
  });
});
