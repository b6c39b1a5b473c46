import type { AppContext } from '../app/context';
import { codeHostAccess } from '../connections/code-host-access';
import { AppError } from '../domain/errors';
import type { Connection } from '../domain/model';
import { isOk, restCall, upstreamMessage } from '../github/webhooks/rest-call';
import type { PollCursor } from './poll-cursor';
import type { PollPage } from './poll-fetch';
import { nextPagePath } from './poll-links';
import { itemIdentity } from './poll-source';

/** Pages read at most per round (100 items each): a burst larger than this is announced over later rounds only if still listed first. */
export const maxPollPages = 10;

type Page = { kind: 'not_modified' } | { kind: 'items'; items: Record<string, unknown>[]; etag?: string; next?: string };

/** One GET of a list page; conditional when an ETag is given (a 304 does not count against the rate limit). */
export async function fetchListPage(ctx: AppContext, connection: Connection, path: string, etag?: string): Promise<Page> {
  const access = await codeHostAccess(ctx, connection);
  const result = await restCall(ctx.fetch, { ...access, method: 'GET', path, headers: etag ? { 'if-none-match': etag } : undefined });
  if (result.status === 304) return { kind: 'not_modified' };
  if (result.status === 401) throw new AppError('reconnect_required', `The code host refused the token of connection ${connection.id}`);
  if (!isOk(result)) throw new AppError('upstream_error', `Polling ${path.split('?')[0]} failed: ${upstreamMessage(result)}`, { upstreamStatus: result.status });
  const items = Array.isArray(result.body) ? (result.body.filter((i) => i && typeof i === 'object') as Record<string, unknown>[]) : [];
  return { kind: 'items', items, etag: result.headers.get('etag') ?? undefined, next: nextPagePath(result.headers.get('link'), access.baseUrl) };
}

/** The newest time an item of a newest-first list is ordered by (created, or updated for lists ordered by update). */
function orderTime(item: Record<string, unknown>): number {
  const times = [item.created_at, item.updated_at].map((t) => (typeof t === 'string' ? Date.parse(t) : NaN)).filter((t) => !Number.isNaN(t));
  return times.length > 0 ? Math.max(...times) : NaN;
}

/**
 * A newest-first list read until what was already seen: the first page conditionally (a 304
 * means nothing new, since a new item would be listed first), then the next pages while the
 * last item of the page read is still at or after the cursor's `since` and not yet seen, so
 * more new items than fit on one page are not missed. The ETag kept is the first page's.
 */
export async function fetchNewestPages(ctx: AppContext, connection: Connection, path: string, cursor: PollCursor | undefined): Promise<PollPage> {
  const first = await fetchListPage(ctx, connection, path, cursor?.etag);
  if (first.kind === 'not_modified') return first;
  const items = [...first.items];
  if (!cursor) return { kind: 'items', items, etag: first.etag };
  const since = Date.parse(cursor.since);
  const seen = new Set(cursor.seen);
  let page: Page = first;
  for (let n = 1; n < maxPollPages && page.kind === 'items' && page.next; n++) {
    const last = page.items.at(-1);
    const lastId = last ? itemIdentity(last)?.id : undefined;
    if (!last || !(orderTime(last) >= since) || (lastId !== undefined && seen.has(lastId))) break;
    page = await fetchListPage(ctx, connection, page.next);
    if (page.kind === 'items') items.push(...page.items);
  }
  return { kind: 'items', items, etag: first.etag };
}
