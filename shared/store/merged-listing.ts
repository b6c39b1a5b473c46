import type { Item, Store } from '../ports';
import { tableDesign } from './table-design';

/** One index partition of a listing; `full` when the index holds whole rows (it projects every attribute). */
export interface ListingSource {
  index: 'gsi1' | 'gsi2' | 'gsi3';
  pk: string;
  full: boolean;
}

export interface ListedRow {
  row: Item;
  sortKey: string;
  source: ListingSource;
}

interface SourceState {
  source: ListingSource;
  buffer: ListedRow[];
  cursor?: string;
  done: boolean;
  pageSize: number;
}

/** Queries one listing may make before it stops where it is (pages of expired rows hold nothing). */
const maxQueries = 200;
const maxPageSize = 100;

/**
 * Rows of several index partitions that share one sort order (a listing sharded, or several
 * connections' listings), merged newest first. Each partition is read a page at a time, all of
 * them strictly before `before`: since the sort keys are unique across partitions and every
 * partition is read in the same order, the sort key of the last row taken is a position in
 * every partition at once, so a page's cursor stays one sort key however many partitions it
 * covers. A partition's first page is small (its share of what the caller wants); each next
 * one doubles, up to 100 rows.
 */
export class MergedListing {
  private readonly states: SourceState[];
  private queries = 0;
  /** False when the listing stopped at its query bound rather than at the end of every partition. */
  complete = true;

  constructor(
    private readonly store: Store,
    sources: readonly ListingSource[],
    private readonly before: string | undefined,
    wanted: number,
  ) {
    const first = Math.min(maxPageSize, Math.max(2, Math.ceil(wanted / Math.max(1, sources.length)) + 1));
    this.states = sources.map((source) => ({ source, buffer: [], done: false, pageSize: first }));
  }

  /** The next row, newest first across every partition; undefined at the end (or at the query bound: see `complete`). */
  async next(): Promise<ListedRow | undefined> {
    for (;;) {
      const empty = this.states.filter((s) => s.buffer.length === 0 && !s.done);
      if (empty.length === 0) break;
      if (this.queries + empty.length > maxQueries) {
        this.complete = false;
        return undefined;
      }
      await Promise.all(empty.map((s) => this.refill(s)));
    }
    let newest: SourceState | undefined;
    for (const s of this.states) {
      const head = s.buffer[0];
      if (head && (!newest || head.sortKey > (newest.buffer[0]?.sortKey ?? ''))) newest = s;
    }
    return newest?.buffer.shift();
  }

  private async refill(s: SourceState): Promise<void> {
    this.queries++;
    const page = await this.store.query({
      index: s.source.index,
      pk: s.source.pk,
      ascending: false,
      limit: s.pageSize,
      ...(this.before !== undefined ? { skBefore: this.before } : {}),
      ...(s.cursor !== undefined ? { cursor: s.cursor } : {}),
    });
    const sortKeyName = tableDesign[s.source.index].sortKey;
    for (const row of page.items) {
      const sortKey = row[sortKeyName];
      if (typeof sortKey === 'string') s.buffer.push({ row, sortKey, source: s.source });
    }
    s.pageSize = Math.min(maxPageSize, s.pageSize * 2);
    if (page.cursor === undefined) s.done = true;
    else s.cursor = page.cursor;
  }
}
