import type { Store } from '../../../ports';
import { keys } from '../../../store/table-design';

/**
 * Where one polled source (a connection's list: its gists, its or an organization's
 * repositories) stands, shared by every subscription on it. Bounded whatever the source's
 * history: a high-water mark and the ids of the most recent items, never a growing list.
 *
 * An item is new to the source when it was created at or after `since` and its id is not
 * among `recent`. `since` trails the newest creation time seen by `lookbackMs`, so an item
 * the code host lists a little late (its clock ran ahead of its index) is still found; every
 * item seen at or after `since` is in `recent`, so nothing at or after `since` is announced
 * twice. When more than `maxRecent` items fall in the window, `since` moves up past the
 * oldest ones dropped instead of the list growing.
 */
export interface SourceCursor {
  /** The first page's ETag, for the next conditional GET. */
  etag?: string;
  /** ISO time: items created before it are never new. */
  since: string;
  /** `[id, created epoch ms]` of every item seen at or after `since`, newest first, at most `maxRecent`. */
  recent: Array<[string, number]>;
  updatedAt: string;
}

/** Ids kept: one page (100), so a cursor stays a few KB even with 32-character gist ids. */
export const maxRecent = 100;
/** How far behind the newest creation time an item may still be listed late and be announced. */
export const lookbackMs = 10 * 60_000;

export interface SeenItem {
  id: string;
  createdAt: string;
}

/** The items of a read that are new to the source (the code host's order kept). */
export function freshItems<T extends SeenItem>(cursor: Pick<SourceCursor, 'since' | 'recent'>, items: readonly T[]): T[] {
  const since = Date.parse(cursor.since);
  const known = new Set(cursor.recent.map(([id]) => id));
  return items.filter((x) => {
    const t = Date.parse(x.createdAt);
    return !Number.isNaN(t) && t >= since && !known.has(x.id);
  });
}

/** The cursor after `seen` (items read this round), bounded by `maxRecent` and `lookbackMs`. */
export function advanceCursor(
  cursor: Pick<SourceCursor, 'since' | 'recent'> | undefined,
  seen: readonly SeenItem[],
  etag: string | undefined,
  nowIso: string,
): SourceCursor {
  const byId = new Map<string, number>(cursor?.recent ?? []);
  for (const x of seen) {
    const t = Date.parse(x.createdAt);
    if (!Number.isNaN(t)) byId.set(x.id, t);
  }
  const entries = [...byId].sort((a, b) => b[1] - a[1]);
  const newest = entries[0]?.[1];
  const oldSince = cursor ? Date.parse(cursor.since) : Number.NEGATIVE_INFINITY;
  // Nothing dated read (an empty list): keep the old mark; only a first cursor falls back to our clock.
  let since = newest === undefined ? (cursor ? oldSince : Date.parse(nowIso)) : Math.max(oldSince, newest - lookbackMs);
  let recent = entries.filter(([, t]) => t >= since);
  const firstDropped = recent[maxRecent];
  if (firstDropped !== undefined) {
    // Too many in the window: raise `since` above the first one dropped (and its ties), so what is dropped can never look new again.
    since = firstDropped[1] + 1;
    recent = recent.slice(0, maxRecent).filter(([, t]) => t >= since);
  }
  return { etag, since: new Date(since).toISOString(), recent, updatedAt: nowIso };
}

/**
 * The row of a source's cursor: one per (connection, list), in one partition per connection,
 * so a round reads all of a connection's cursors with one Query.
 */
export function sourceCursorKey(connectionId: string, path: string): { pk: string; sk: string } {
  return keys.sourceCursor(connectionId, path);
}

type CursorRow = { pk: string; sk: string } & Partial<SourceCursor>;

function fromRow(item: CursorRow | undefined): SourceCursor | undefined {
  if (!item || typeof item.since !== 'string' || !Array.isArray(item.recent)) return undefined;
  return { etag: item.etag, since: item.since, recent: item.recent, updatedAt: item.updatedAt ?? '' };
}

export async function readSourceCursor(store: Store, connectionId: string, path: string): Promise<SourceCursor | undefined> {
  return fromRow(await store.get<CursorRow>(sourceCursorKey(connectionId, path)));
}

/** Every source cursor of a connection, by path. */
export async function readConnectionCursors(store: Store, connectionId: string): Promise<Map<string, SourceCursor>> {
  const out = new Map<string, SourceCursor>();
  const { pk, skPrefix: prefix } = keys.sourceCursors(connectionId);
  let cursor: string | undefined;
  do {
    const page = await store.query<CursorRow>({ pk, skPrefix: prefix, cursor });
    for (const row of page.items) {
      const c = fromRow(row);
      if (c) out.set(row.sk.slice(prefix.length), c);
    }
    cursor = page.cursor;
  } while (cursor);
  return out;
}

export async function writeSourceCursor(store: Store, connectionId: string, path: string, cursor: SourceCursor): Promise<void> {
  await store.put({ ...sourceCursorKey(connectionId, path), ...cursor });
}
