import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import type { Store } from '../../shared/ports';
import { claimOnce, onceState } from '../../shared/store/once-claim';
import { finishWith, giveBack, withClaim, type ClaimSpec } from '../../shared/store/with-claim';
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

const key = { pk: 'TESTCLAIM#1', sk: 'TESTCLAIM' };
const spec: ClaimSpec = { key, leaseSeconds: 15, doneTtlSeconds: 3600, attrs: { deliveryId: 'd-1' } };
const ctx = () => ({ store, clock });

describe('withClaim: claim, run, finish on success, give back on failure or abort', () => {
  it('runs the work once and marks the claim done (with the rows it names), so a second run sees it done', async () => {
    const row = { pk: 'TESTROW#1', sk: 'ROW', note: 'written with the mark' };
    const first = await withClaim(ctx(), { ...spec, marksWith: [{ pk: 'TESTCLAIM#id', sk: 'TESTCLAIM' }] }, async () =>
      finishWith(7, [row]),
    );
    expect(first).toEqual({ kind: 'ran', value: 7 });
    expect(await onceState(store, key)).toBe('done');
    expect(await onceState(store, { pk: 'TESTCLAIM#id', sk: 'TESTCLAIM' })).toBe('done');
    expect(await store.get(row)).toMatchObject({ note: 'written with the mark' });
    let ran = false;
    const second = await withClaim(ctx(), spec, async () => {
      ran = true;
      return finishWith(8);
    });
    expect(ran).toBe(false);
    expect(second).toMatchObject({ kind: 'done', item: { deliveryId: 'd-1', state: 'done' } });
  });

  it('gives the claim back when the work throws, so the next attempt takes it at once', async () => {
    await expect(
      withClaim(ctx(), spec, async () => {
        throw new Error('enqueue failed');
      }),
    ).rejects.toThrow('enqueue failed');
    expect(await onceState(store, key)).toBe('none');
    expect(await withClaim(ctx(), spec, async () => finishWith('again'))).toEqual({ kind: 'ran', value: 'again' });
  });

  it('gives the claim back when the work says so (nothing delivered), without marking it done', async () => {
    expect(await withClaim(ctx(), spec, async () => giveBack('not delivered'))).toEqual({ kind: 'ran', value: 'not delivered' });
    expect(await onceState(store, key)).toBe('none');
  });

  it('two attempts at once: one runs, the other is told busy until the lease ends and does not run', async () => {
    let release: () => void = () => undefined;
    const holding = new Promise<void>((r) => {
      release = r;
    });
    const runs: string[] = [];
    const first = withClaim(ctx(), spec, async () => {
      runs.push('first');
      await holding;
      return finishWith('first');
    });
    // Wait until the first holds the claim.
    while (runs.length === 0) await new Promise((r) => setTimeout(r, 5));
    const second = await withClaim(ctx(), spec, async () => {
      runs.push('second');
      return finishWith('second');
    });
    expect(second).toEqual({ kind: 'busy', leaseEndsAtMs: Math.floor(clock.now() / 1000) * 1000 + 15_000 });
    release();
    expect(await first).toEqual({ kind: 'ran', value: 'first' });
    expect(runs).toEqual(['first']);
  });

  it('an abort gives the claim back at once, while the work is still running; what the work ends with is reported late', async () => {
    const controller = new AbortController();
    let finishWork: () => void = () => undefined;
    const stuck = new Promise<void>((r) => {
      finishWork = r;
    });
    let started = false;
    const run = withClaim(ctx(), { ...spec, signal: controller.signal }, async () => {
      started = true;
      await stuck;
      return giveBack('stopped at its next check');
    });
    while (!started) await new Promise((r) => setTimeout(r, 5));
    expect(await onceState(store, key)).toBe('in_progress');
    controller.abort();
    const outcome = await run;
    expect(outcome.kind).toBe('aborted');
    expect(await onceState(store, key)).toBe('none');
    finishWork();
    expect(outcome.kind === 'aborted' && (await outcome.late)).toBe('stopped at its next check');
  });

  it('an abort that comes while the claim is being taken gives it back and does not run the work', async () => {
    const controller = new AbortController();
    controller.abort();
    let ran = false;
    const outcome = await withClaim(ctx(), { ...spec, signal: controller.signal }, async () => {
      ran = true;
      return finishWith(1);
    });
    expect(outcome.kind).toBe('aborted');
    expect(ran).toBe(false);
    expect((await claimOnce(store, clock, key, 15)).kind).toBe('claimed');
  });

  it('a lease (no done mark) is given back even when the work says finish', async () => {
    const { doneTtlSeconds: _d, ...lease } = spec;
    expect(await withClaim(ctx(), lease, async () => finishWith('held'))).toEqual({ kind: 'ran', value: 'held' });
    expect(await onceState(store, key)).toBe('none');
  });

  it('a done mark that cannot be written is reported, and the run still counts as ran, when the caller asks for that', async () => {
    const failing: Store = {
      ...store,
      get: store.get.bind(store),
      query: store.query.bind(store),
      delete: store.delete.bind(store),
      put: (item, opts) => (opts ? store.put(item, opts) : Promise.reject(new Error('table throttled'))),
      putAll: () => Promise.reject(new Error('table throttled')),
    };
    const reported: unknown[] = [];
    const outcome = await withClaim({ store: failing, clock }, { ...spec, onFinishFailed: (e) => reported.push(e) }, async () =>
      finishWith('queued'),
    );
    expect(outcome).toEqual({ kind: 'ran', value: 'queued' });
    expect(reported).toHaveLength(1);
    // Not marked done: the claim lapses with its lease.
    expect(await onceState(store, key)).toBe('in_progress');
    await expect(
      withClaim({ store: failing, clock }, { ...spec, key: { pk: 'TESTCLAIM#2', sk: 'TESTCLAIM' } }, async () => finishWith('x')),
    ).rejects.toThrow('table throttled');
  });
});
