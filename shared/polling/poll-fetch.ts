import type { AppContext } from '../ports/app-context';
import { codeHostAccess } from '../github/code-host-access';
import { AppError } from '../domain/errors';
import type { Connection } from '../domain/model';
import { isOk, restCall, upstreamMessage } from '../github/webhooks/rest-call';
import { nextPagePath } from './poll-links';

export type PollPage = { kind: 'not_modified' } | { kind: 'items'; items: Record<string, unknown>[]; etag?: string };

/** One page of a list, with the path of the next page when the `Link` header names one. */
export type ListPage = { kind: 'not_modified' } | { kind: 'items'; items: Record<string, unknown>[]; etag?: string; next?: string };

/**
 * One GET of a list page, conditional when an ETag is given: the code host answers 304 when
 * nothing changed, and a 304 does not count against the rate limit.
 */
export async function fetchListPage(ctx: AppContext, connection: Connection, path: string, etag?: string): Promise<ListPage> {
  const access = await codeHostAccess(ctx, connection);
  const result = await restCall(ctx.fetch, { ...access, method: 'GET', path, headers: etag ? { 'if-none-match': etag } : undefined });
  if (result.status === 304) return { kind: 'not_modified' };
  if (result.status === 401) throw new AppError('reconnect_required', `The code host refused the token of connection ${connection.id}`);
  if (!isOk(result)) throw new AppError('upstream_error', `Polling ${path.split('?')[0]} failed: ${upstreamMessage(result)}`, { upstreamStatus: result.status });
  const items = Array.isArray(result.body) ? (result.body.filter((i) => i && typeof i === 'object') as Record<string, unknown>[]) : [];
  return { kind: 'items', items, etag: result.headers.get('etag') ?? undefined, next: nextPagePath(result.headers.get('link'), access.baseUrl) };
}
