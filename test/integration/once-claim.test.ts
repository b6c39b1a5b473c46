import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import type { Store } from '../../shared/ports';
import { claimOnce, finishOnce, releaseOnce } from '../../shared/store/once-claim';
import { keys } from '../../shared/store/table-design';
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

const key = keys.deliveryClaim('ep_test', 'guid-1');

describe('once-claims (in progress with a lease, then done)', () => {
  it('is busy while its lease holds, taken over once it passes, and the old holder cannot release the new one', async () => {
    const a = await claimOnce(store, clock, key, 15);
    expect(a.kind).toBe('claimed');
    expect(await claimOnce(store, clock, key, 15)).toMatchObject({
      kind: 'busy',
      leaseEndsAtMs: Math.floor(clock.now() / 1000) * 1000 + 15_000,
    });
    clock.advance(16_000);
    const b = await claimOnce(store, clock, key, 15);
    expect(b.kind).toBe('claimed');
    // The dead attempt, come back to life, gives back what it no longer holds: nothing happens.
    expect(await releaseOnce(store, clock, { key, fence: a.kind === 'claimed' ? a.fence : 0 })).toBe(false);
    expect((await claimOnce(store, clock, key, 15)).kind).toBe('busy');
    expect(await releaseOnce(store, clock, { key, fence: b.kind === 'claimed' ? b.fence : 0 })).toBe(true);
    expect((await claimOnce(store, clock, key, 15)).kind).toBe('claimed');
  });

  it('is done for good once finished (whoever finishes it), and a release does not undo that', async () => {
    const a = await claimOnce(store, clock, key, 15, { deliveryId: 'guid-1' });
    await finishOnce(store, clock, key, 3600, { deliveryId: 'guid-1' });
    expect(await releaseOnce(store, clock, { key, fence: a.kind === 'claimed' ? a.fence : 0 })).toBe(false);
    clock.advance(60_000);
    const again = await claimOnce(store, clock, key, 15);
    expect(again.kind).toBe('done');
    expect(again.kind === 'done' && again.item.deliveryId).toBe('guid-1');
    clock.advance(3600_000);
    expect((await claimOnce(store, clock, key, 15)).kind).toBe('claimed');
  });

  it('reads a row written before claims had a state (a plain claim) as done', async () => {
    await store.put({ ...key, endpointId: 'ep_test', deliveryId: 'guid-1', ttl: Math.floor(clock.now() / 1000) + 3600 });
    expect((await claimOnce(store, clock, key, 15)).kind).toBe('done');
  });
});
