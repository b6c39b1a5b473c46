import type { AppContext } from '../../../../ports/app-context';
import { codeHostAccess } from '../../code-host-access';
import { restCall, type RestResult } from '../../webhooks/rest-call';
import { ConnectionRepo } from '../../../../store/connection-repo';

/** Below this many requests left in a token's hour, follow-up reads wait for the reset: the rest is the agents' own. */
export const followUpRateReserve = 500;

export interface ReadResult extends RestResult {
  /** Requests left in the token's hour (`X-RateLimit-Remaining`), when the answer said. */
  remaining?: number;
  /** Seconds until the hour's budget is whole again (`Retry-After`, else `X-RateLimit-Reset`), when the answer said. */
  resetInSeconds?: number;
  /** The primary budget is spent, or a secondary limit answered (403/429 with no budget left or a Retry-After). */
  rateLimited: boolean;
}

/**
 * One GET of the code host with a trigger event's connection (its token read as the poller
 * and the tool steps read it; 10 s per request, no redirect followed). Undefined when the
 * connection is gone or must be reconnected: the read cannot be made.
 */
export async function readAsConnection(ctx: AppContext, connectionId: string, path: string): Promise<ReadResult | undefined> {
  const connection = await new ConnectionRepo(ctx.store).get(connectionId);
  if (connection?.status !== 'connected') return undefined;
  const access = await codeHostAccess(ctx, connection);
  const result = await restCall(ctx.fetch, { ...access, method: 'GET', path });
  const remaining = Number(result.headers.get('x-ratelimit-remaining') ?? NaN);
  const reset = Number(result.headers.get('x-ratelimit-reset') ?? NaN);
  const retryAfter = Number(result.headers.get('retry-after') ?? NaN);
  const nowSeconds = Math.floor(ctx.clock.now() / 1000);
  const resetInSeconds = Number.isFinite(retryAfter) ? retryAfter : Number.isFinite(reset) ? Math.max(0, reset - nowSeconds) : undefined;
  const rateLimited = (result.status === 403 || result.status === 429) && (remaining === 0 || Number.isFinite(retryAfter));
  return {
    ...result,
    rateLimited,
    ...(Number.isFinite(remaining) ? { remaining } : {}),
    ...(resetInSeconds !== undefined ? { resetInSeconds } : {}),
  };
}
