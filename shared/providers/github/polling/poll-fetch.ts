import type { AppContext } from '../../../ports/app-context';
import { codeHostAccess } from '../code-host-access';
import { AppError } from '../../../domain/errors';
import type { Connection } from '../../../domain/model';
import { isOk, restCall, upstreamMessage } from '../webhooks/rest-call';
import { nextPagePath } from './poll-links';
import type { RateBudget } from '../../../polling/poll-unit';

/** What the code host said is left of the token's hourly budget (`X-RateLimit-*`), when it said. */
export type { RateBudget };

export type PollPage =
  | { kind: 'not_modified'; rate?: RateBudget }
  | { kind: 'items'; items: Record<string, unknown>[]; etag?: string; rate?: RateBudget };

/** One page of a list, with the path of the next page when the `Link` header names one. */
export type ListPage =
  | { kind: 'not_modified'; rate?: RateBudget }
  | { kind: 'items'; items: Record<string, unknown>[]; etag?: string; next?: string; rate?: RateBudget };

function rateOf(headers: Headers): RateBudget | undefined {
  const remaining = Number(headers.get('x-ratelimit-remaining') ?? NaN);
  if (!Number.isFinite(remaining)) return undefined;
  const reset = Number(headers.get('x-ratelimit-reset') ?? NaN);
  return Number.isFinite(reset) ? { remaining, resetAt: reset } : { remaining };
}

/**
 * One GET of a list page, conditional when an ETag is given: the code host answers 304 when
 * nothing changed, and a 304 does not count against the rate limit.
 */
export async function fetchListPage(ctx: AppContext, connection: Connection, path: string, etag?: string): Promise<ListPage> {
  const access = await codeHostAccess(ctx, connection);
  const result = await restCall(ctx.fetch, { ...access, method: 'GET', path, headers: etag ? { 'if-none-match': etag } : undefined });
  const rate = rateOf(result.headers);
  if (result.status === 304) return { kind: 'not_modified', rate };
  if (result.status === 401) throw new AppError('reconnect_required', `The code host refused the token of connection ${connection.id}`);
  if ((result.status === 403 || result.status === 429) && (rate?.remaining === 0 || result.headers.has('retry-after'))) {
    // The primary budget spent, or a secondary limit: the poller defers the connection's other sources.
    throw new AppError('rate_limited', `The code host's rate limit for connection ${connection.id} is reached`, {
      upstreamStatus: result.status,
      remaining: rate?.remaining,
    });
  }
  if (!isOk(result))
    throw new AppError('upstream_error', `Polling ${path.split('?')[0]} failed: ${upstreamMessage(result)}`, {
      upstreamStatus: result.status,
    });
  const items = Array.isArray(result.body) ? (result.body.filter((i) => i && typeof i === 'object') as Record<string, unknown>[]) : [];
  return {
    kind: 'items',
    items,
    etag: result.headers.get('etag') ?? undefined,
    next: nextPagePath(result.headers.get('link'), access.baseUrl),
    rate,
  };
}
