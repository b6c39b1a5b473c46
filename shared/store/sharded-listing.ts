import type { Key, Store } from '../ports';
import { listingShardCount, type ShardedListing, stableShard, tableDesign } from './table-design';

/** The index partition that holds `tenant`'s rows of `listing`. */
export function shardOf(listing: ShardedListing, tenant: string): string {
  return `${listing.partition}#${stableShard(tenant, listingShardCount)}`;
}

/** Where a listing's rows may be: one tenant's shard or every shard, and the partition from before the shards. */
function partitionsOf(listing: ShardedListing, tenant: string | undefined): string[] {
  const shards =
    tenant !== undefined ? [shardOf(listing, tenant)] : Array.from({ length: listingShardCount }, (_, n) => `${listing.partition}#${n}`);
  return [...shards, listing.partition];
}

export interface ListingRead {
  /** Only this tenant's rows: its one shard is read, not all of them. */
  tenant?: string;
  /** Only rows whose sort key starts with this. */
  skPrefix?: string;
  /** The first this many rows in order; absent: all of them. */
  limit?: number;
}

async function readPartition<T extends Key>(
  store: Store,
  index: ShardedListing['index'],
  pk: string,
  skPrefix: string | undefined,
  limit: number,
): Promise<T[]> {
  const out: T[] = [];
  let cursor: string | undefined;
  do {
    const page = await store.query<T>({ pk, index, ...(skPrefix !== undefined ? { skPrefix } : {}), ...(cursor ? { cursor } : {}) });
    out.push(...page.items);
    cursor = page.cursor;
  } while (cursor && out.length < limit);
  return out;
}

/**
 * A listing's rows in the order one partition gave them before it was sharded (its sort key,
 * ascending): each partition read page by page in parallel, to its end or until it has given
 * `limit` rows (the first `limit` of all are among those), then merged. A row rewritten while
 * the listing is read may show both in the partition from before and in its shard: it is
 * answered once, as its shard holds it.
 */
export async function readListing<T extends Key>(store: Store, listing: ShardedListing, read: ListingRead = {}): Promise<T[]> {
  const limit = read.limit ?? Number.POSITIVE_INFINITY;
  const parts = await Promise.all(
    partitionsOf(listing, read.tenant).map((pk) => readPartition<T>(store, listing.index, pk, read.skPrefix, limit)),
  );
  const rows = new Map<string, T>();
  for (const row of parts.flat()) {
    const key = `${row.pk}\u0000${row.sk}`;
    if (!rows.has(key)) rows.set(key, row);
  }
  const sortKey = tableDesign[listing.index].sortKey;
  const sortOf = (row: T) => String((row as Record<string, unknown>)[sortKey] ?? '');
  const sorted = [...rows.values()].sort((a, b) => (sortOf(a) < sortOf(b) ? -1 : sortOf(a) > sortOf(b) ? 1 : 0));
  return Number.isFinite(limit) ? sorted.slice(0, limit) : sorted;
}
