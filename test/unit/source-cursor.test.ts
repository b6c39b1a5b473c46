import { describe, expect, it } from 'vitest';
import { advanceCursor, freshItems, lookbackMs, maxRecent, type SourceCursor } from '../../shared/providers/github/polling/source-cursor';

const t0 = Date.UTC(2026, 0, 1);
const iso = (ms: number) => new Date(ms).toISOString();
/** A gist-like id: 32 hex characters, the longest ids the polled lists carry. */
const gistId = (n: number) => n.toString(16).padStart(32, '0');

describe('a source cursor stays bounded', () => {
  it('after 100,000 items, seen 100 a round, each item is new exactly once and the cursor serializes to a few KB', () => {
    let cursor: SourceCursor = advanceCursor(undefined, [], undefined, iso(t0));
    let announced = 0;
    const all = Array.from({ length: 100_000 }, (_, i) => ({ id: gistId(i), createdAt: iso(t0 + 1000 + i * 1000) }));
    for (let r = 0; r < 1000; r++) {
      // What a newest-first first page holds: this round's 100 and the 100 before them.
      const page = all.slice(Math.max(0, r * 100 - 100), (r + 1) * 100).reverse();
      const fresh = freshItems(cursor, page);
      expect(fresh.map((x) => x.id).sort()).toEqual(
        all
          .slice(r * 100, (r + 1) * 100)
          .map((x) => x.id)
          .sort(),
      );
      announced += fresh.length;
      cursor = advanceCursor(cursor, page, `"etag-${r}"`, iso(t0));
    }
    expect(announced).toBe(100_000);
    expect(cursor.recent.length).toBeLessThanOrEqual(maxRecent);
    const bytes = Buffer.byteLength(JSON.stringify(cursor));
    expect(bytes).toBeLessThan(6 * 1024);
    // Nothing already seen is new again, even re-listed.
    expect(freshItems(cursor, all.slice(-300))).toEqual([]);
  });

  it('finds an item the code host lists late (created before newer ones) within the look-back, once', () => {
    let cursor = advanceCursor(undefined, [{ id: 'a', createdAt: iso(t0) }], undefined, iso(t0));
    cursor = advanceCursor(cursor, [{ id: 'c', createdAt: iso(t0 + 60_000) }], undefined, iso(t0));
    const late = { id: 'b', createdAt: iso(t0 + 30_000) };
    expect(freshItems(cursor, [late])).toEqual([late]);
    cursor = advanceCursor(cursor, [late], undefined, iso(t0));
    expect(freshItems(cursor, [late])).toEqual([]);
    // Older than the look-back: history, never announced.
    expect(freshItems(cursor, [{ id: 'z', createdAt: iso(t0 + 60_000 - lookbackMs - 1) }])).toEqual([]);
  });

  it('when more than it keeps share the window, moves its mark past those it drops so none is new again', () => {
    const burst = Array.from({ length: 250 }, (_, i) => ({ id: `b${i}`, createdAt: iso(t0 + i) }));
    const cursor = advanceCursor(undefined, burst, undefined, iso(t0));
    expect(cursor.recent).toHaveLength(maxRecent);
    expect(freshItems(cursor, burst)).toEqual([]);
    const next = { id: 'n', createdAt: iso(t0 + 250) };
    expect(freshItems(cursor, [next, ...burst])).toEqual([next]);
  });

  it('keeps its mark when a read holds nothing dated (a list emptied by deletions)', () => {
    const cursor = advanceCursor(undefined, [{ id: 'a', createdAt: iso(t0) }], undefined, iso(t0));
    const after = advanceCursor(cursor, [], '"e"', iso(t0 + 3600_000));
    expect(after.since).toBe(cursor.since);
  });
});
