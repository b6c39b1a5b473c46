import * as z from 'zod';
import type { CodeHostAccess } from '../code-host-access';
import { AppError } from '../../../domain/errors';
import type { Endpoint } from '../../../domain/model';
import { hooksPath } from '../webhooks/hook-registration';
import { isOk, restCall, upstreamMessage } from '../webhooks/rest-call';
import type { Fetch } from '../../../ports';
import { CursorRefused, type DeliveryPage, type HookDelivery, type RateBudget, type SweptHook } from '../../../sweep/swept-hook';

const deliverySchema = z.object({
  id: z.number(),
  guid: z.string().min(1).max(200),
  delivered_at: z.string().optional(),
  redelivery: z.boolean().optional(),
  status_code: z.number().optional(),
  event: z.string().max(200).optional(),
  /** The App's webhook: the installation the delivery was for (none for the App's own events). */
  installation_id: z.number().int().positive().nullable().optional(),
});

deliverySchema satisfies z.ZodType<HookDelivery>;

/**
 * A page of 100 deliveries is some 40 KB; an answer far larger than that is not one, and is
 * refused before it is held whole.
 */
export const maxDeliveryPageBytes = 1024 * 1024;

/** The most the code host lists on one page (`per_page` is capped at 100). */
const perPage = 100;

/** A repository or organization hook of ours: `.../hooks/{hook_id}`, read with the connection's token. */
export function endpointHookBase(endpoint: Endpoint): string {
  return `${hooksPath(endpoint.target)}/${endpoint.hookId}`;
}

/** The GitHub App's one webhook: `/app/hook`, read with the App's JWT. */
export const appHookBase = '/app/hook';

function rateOf(headers: Headers): RateBudget | undefined {
  const remaining = Number(headers.get('x-ratelimit-remaining') ?? Number.NaN);
  if (!Number.isFinite(remaining)) return undefined;
  const reset = Number(headers.get('x-ratelimit-reset') ?? Number.NaN);
  return Number.isFinite(reset) ? { remaining, resetAt: reset } : { remaining };
}

/**
 * The `cursor` of the `rel="next"` URL in a `Link` header. Only the cursor is taken: the URL
 * itself is never followed, so the token goes nowhere but the connection's own REST base.
 */
export function nextCursor(link: string | null): string | undefined {
  if (!link) return undefined;
  for (const part of link.split(',')) {
    const m = /<([^>]+)>\s*;\s*rel="?next"?/.exec(part);
    if (!m?.[1] || !URL.canParse(m[1])) continue;
    const cursor = new URL(m[1]).searchParams.get('cursor');
    return cursor && cursor.length <= 500 ? cursor : undefined;
  }
  return undefined;
}

function refusal(result: { status: number; headers: Headers }, what: string, message: string): AppError {
  const rate = rateOf(result.headers);
  // A secondary rate limit (too many requests at once, or too many points a minute) may come without either header.
  const limited = rate?.remaining === 0 || result.headers.has('retry-after') || /secondary rate limit/i.test(message);
  if ((result.status === 403 || result.status === 429) && limited)
    return new AppError('rate_limited', `The code host's rate limit is reached (${what})`, { upstreamStatus: result.status });
  return new AppError('upstream_error', `${what} failed: ${message}`, { upstreamStatus: result.status });
}

/**
 * One page (100, newest first) of the hook's deliveries, from `cursor` when given
 * (`GET {hookBase}/deliveries?per_page=100&cursor=`: `hookBase` is `.../hooks/{hook_id}` or
 * the App's `/app/hook`, whose listing pages the same way). Every attempt is listed:
 * the code host's `status=failure` filter covers status codes 400-599 only, and leaves out
 * the attempts that got no answer at all (status code 0), which are the ones an outage makes.
 */
export async function listDeliveriesPage(fetchFn: Fetch, access: CodeHostAccess, hookBase: string, cursor?: string): Promise<DeliveryPage> {
  const query = new URLSearchParams({ per_page: String(perPage) });
  if (cursor !== undefined) query.set('cursor', cursor);
  const result = await restCall(fetchFn, {
    maxBytes: maxDeliveryPageBytes,
    ...access,
    method: 'GET',
    path: `${hookBase}/deliveries?${query.toString()}`,
  });
  if (cursor !== undefined && (result.status === 400 || result.status === 422)) throw new CursorRefused(upstreamMessage(result));
  if (!isOk(result)) throw refusal(result, `Listing deliveries of ${hookBase}`, upstreamMessage(result));
  const list = Array.isArray(result.body) ? result.body.slice(0, perPage) : [];
  const deliveries = list.flatMap((d) => {
    const parsed = deliverySchema.safeParse(d);
    return parsed.success ? [parsed.data] : [];
  });
  const next = nextCursor(result.headers.get('link'));
  const rate = rateOf(result.headers);
  return { deliveries, ...(next !== undefined ? { next } : {}), ...(rate ? { rate } : {}) };
}

/** Asks the code host to send one delivery again; what it said is left of the rate budget. */
export async function requestRedelivery(
  fetchFn: Fetch,
  access: CodeHostAccess,
  hookBase: string,
  deliveryId: number,
): Promise<RateBudget | undefined> {
  const result = await restCall(fetchFn, {
    maxBytes: maxDeliveryPageBytes,
    ...access,
    method: 'POST',
    path: `${hookBase}/deliveries/${deliveryId}/attempts`,
  });
  if (!isOk(result)) throw refusal(result, `Redelivery of ${deliveryId}`, upstreamMessage(result));
  return rateOf(result.headers);
}

/** A hook of the code host as the sweep walks it: its delivery log at `base`, read and redelivered with `access`. */
export function sweptHook(
  fetchFn: Fetch,
  access: CodeHostAccess,
  hook: { id: string; base: string; routeId: SweptHook['routeId'] },
): SweptHook {
  return {
    id: hook.id,
    routeId: hook.routeId,
    page: (cursor) => listDeliveriesPage(fetchFn, access, hook.base, cursor),
    redeliver: (deliveryId) => requestRedelivery(fetchFn, access, hook.base, deliveryId),
  };
}
