import type { AppContext } from '../../../ports/app-context';
import type { Connection } from '../../../domain/model';
import { fetchListPage, type ListPage, type PollPage } from './poll-fetch';
import { itemIdentity } from './poll-source';

/** Pages read at most per round (100 items each): a burst larger than this is announced over later rounds only if still listed first. */
export const maxPollPages = 10;

/** The newest time an item of a newest-first list is ordered by (created, or updated for lists ordered by update). */
function orderTime(item: Record<string, unknown>): number {
  const times = [item.created_at, item.updated_at]
    .map((t) => (typeof t === 'string' ? Date.parse(t) : NaN))
    .filter((t) => !Number.isNaN(t));
  return times.length > 0 ? Math.max(...times) : NaN;
}

/**
 * A newest-first list read until what was already seen: the first page conditionally (a 304
 * means nothing new, since a new item would be listed first), then the next pages while the
 * last item of the page read is still at or after the cursor's `since` and not yet seen, so
 * more new items than fit on one page are not missed. The ETag kept is the first page's.
 */
export interface PagesCursor {
  etag?: string;
  since: string;
  /** Ids already seen at or after `since`. */
  seen: readonly string[];
}

export async function fetchNewestPages(
  ctx: AppContext,
  connection: Connection,
  path: string,
  cursor: PagesCursor | undefined,
): Promise<PollPage> {
  const first = await fetchListPage(ctx, connection, path, cursor?.etag);
  if (first.kind === 'not_modified') return first;
  const items = [...first.items];
  if (!cursor) return { kind: 'items', items, etag: first.etag, rate: first.rate };
  const since = Date.parse(cursor.since);
  const seen = new Set(cursor.seen);
  let page: ListPage = first;
  let rate = first.rate;
  for (let n = 1; n < maxPollPages && page.kind === 'items' && page.next; n++) {
    const last = page.items.at(-1);
    const lastId = last ? itemIdentity(last)?.id : undefined;
    if (!last || !(orderTime(last) >= since) || (lastId !== undefined && seen.has(lastId))) break;
    page = await fetchListPage(ctx, connection, page.next);
    if (page.kind === 'items') items.push(...page.items);
    rate = page.rate ?? rate;
  }
  return { kind: 'items', items, etag: first.etag, rate };
}
