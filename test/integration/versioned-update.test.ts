import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import type { Item, Store } from '../../shared/ports';
import { leaveRow, VersionRaceLostError, versionedUpdate, writeRow } from '../../shared/store/versioned-update';
import { stopTestDynamo, TestClock, testStore } from '../helpers/dynamo';

let store: Store;
beforeEach(async () => {
  ({ store } = await testStore(new TestClock()));
});
afterAll(async () => {
  await stopTestDynamo();
});

const key = { pk: 'TEST#row', sk: 'TEST' };
type Row = Item & { tags?: string[]; version?: number };

/** Resolves once `n` callers have arrived: both writers read before either writes. */
function barrier(n: number): () => Promise<void> {
  let arrived = 0;
  let open: () => void = () => undefined;
  const opened = new Promise<void>((r) => {
    open = r;
  });
  return () => {
    arrived++;
    if (arrived >= n) open();
    return opened;
  };
}

/** A writer that adds `tag`; its first read waits at `gate`; counts its tries. */
function adder(tag: string, gate: () => Promise<void>) {
  const tries = { reads: 0 };
  const update = () =>
    versionedUpdate<Row, string>(
      store,
      async () => {
        const row = await store.get<Row>(key);
        if (tries.reads++ === 0) await gate();
        return row;
      },
      (row) => writeRow({ ...key, tags: [...(row?.tags ?? []), tag] }, tag),
      { key, attempts: 3 },
    );
  return { tries, update };
}

describe('versionedUpdate: read, a pure change, a write conditioned on the version read', () => {
  it('two writers read the same version: one wins, the other reads again and keeps both changes', async () => {
    await store.put({ ...key, tags: ['start'], version: 1 });
    const gate = barrier(2);
    const a = adder('a', gate);
    const b = adder('b', gate);
    expect(await Promise.all([a.update(), b.update()])).toEqual(['a', 'b']);
    const row = await store.get<Row>(key);
    expect(row?.version).toBe(3);
    expect([...(row?.tags ?? [])].sort()).toEqual(['a', 'b', 'start']);
    // Exactly one of them lost the race and read again.
    expect(a.tries.reads + b.tries.reads).toBe(3);
  });

  it('two writers creating the row at once: the first write is conditioned on absence, so neither change is lost', async () => {
    const gate = barrier(2);
    const a = adder('a', gate);
    const b = adder('b', gate);
    await Promise.all([a.update(), b.update()]);
    const row = await store.get<Row>(key);
    expect(row?.version).toBe(2);
    expect([...(row?.tags ?? [])].sort()).toEqual(['a', 'b']);
  });

  it('a race lost on every try ends in a typed error (unavailable) after the bounded attempts, each lost race told', async () => {
    await store.put({ ...key, tags: [], version: 1 });
    let version = 1;
    const lost: number[] = [];
    const paused: number[] = [];
    const update = versionedUpdate<Row, void>(
      store,
      async () => {
        const row = await store.get<Row>(key);
        // Another writer gets in between every read and write.
        await store.put({ ...key, tags: ['other'], version: ++version });
        return row;
      },
      (row) => writeRow({ ...key, tags: [...(row?.tags ?? []), 'mine'] }, undefined),
      { key, attempts: 4, onLostRace: (n) => lost.push(n), pause: async (n) => void paused.push(n) },
    );
    const error = await update.catch((e: unknown) => e);
    expect(error).toBeInstanceOf(VersionRaceLostError);
    expect(error).toMatchObject({ code: 'unavailable' });
    expect(lost).toEqual([1, 2, 3, 4]);
    expect(paused).toEqual([1, 2, 3]);
    expect((await store.get<Row>(key))?.tags).toEqual(['other']);
  });

  it('a lost race can be turned into the caller’s own error, and onLostRace may stop early', async () => {
    await store.put({ ...key, version: 1 });
    const update = (onLostRace?: () => void) =>
      versionedUpdate<Row, void>(
        store,
        async () => {
          const row = await store.get<Row>(key);
          await store.put({ ...key, version: (row?.version ?? 0) + 10 });
          return row;
        },
        () => writeRow({ ...key }, undefined),
        { key, attempts: 2, lostForGood: () => new Error('mine'), ...(onLostRace ? { onLostRace } : {}) },
      );
    await expect(update()).rejects.toThrow('mine');
    await expect(
      update(() => {
        throw new Error('deadline passed');
      }),
    ).rejects.toThrow('deadline passed');
  });

  it('a change that decides to write nothing writes nothing; a row from before rows had a version is written on existence alone', async () => {
    expect(
      await versionedUpdate<Row, string>(
        store,
        () => store.get<Row>(key),
        () => leaveRow('nothing'),
        { key, attempts: 1 },
      ),
    ).toBe('nothing');
    expect(await store.get(key)).toBeUndefined();
    await store.put({ ...key, tags: ['old'] });
    await versionedUpdate<Row, void>(
      store,
      () => store.get<Row>(key),
      (row) => writeRow({ ...key, tags: [...(row?.tags ?? []), 'new'] }, undefined),
      {
        key,
        attempts: 1,
      },
    );
    expect(await store.get<Row>(key)).toMatchObject({ tags: ['old', 'new'], version: 1 });
  });
});
