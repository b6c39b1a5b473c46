import type { Connection } from '../../domain/model';
import type { AppContext } from '../../ports/app-context';
import type { Store } from '../../ports';
import { ContentSnareClient } from './client';
import { ContentSnareRateLimiter } from './rate-limiter';

// One limiter per (store, wait bound) in a process; every limiter keeps the account's
// budget in the same table rows (RATE#<connection>#read|write), so hook changes, read-backs,
// the recovery check and the tool steps all share one budget per account.
const limiters = new WeakMap<Store, Map<number, ContentSnareRateLimiter>>();

function limiterFor(ctx: AppContext, maxWaitMs: number): ContentSnareRateLimiter {
  let byWait = limiters.get(ctx.store);
  if (!byWait) {
    byWait = new Map();
    limiters.set(ctx.store, byWait);
  }
  let limiter = byWait.get(maxWaitMs);
  if (!limiter) {
    limiter = new ContentSnareRateLimiter({ store: ctx.store, clock: ctx.clock, maxWaitMs, metrics: ctx.metrics, sleep: ctx.sleep });
    byWait.set(maxWaitMs, limiter);
  }
  return limiter;
}

/**
 * The partner API for one connection, within the account's shared rate limit.
 * `maxWaitMs` bounds how long a call waits for the limit before `rate_limited` (the intake
 * must answer within its deadline; the default is the configured tool-step wait).
 */
export function snareClientFor(ctx: AppContext, connection: Connection, options: { maxWaitMs?: number } = {}): ContentSnareClient {
  const maxWaitMs = Math.min(options.maxWaitMs ?? Number.POSITIVE_INFINITY, ctx.config.rateLimitMaxWaitSeconds * 1000);
  return new ContentSnareClient({
    apiUrl: ctx.config.contentsnare.apiUrl,
    connection,
    tokens: ctx.tokens,
    fetch: ctx.fetch,
    clock: ctx.clock,
    limiter: limiterFor(ctx, maxWaitMs),
    sleep: ctx.sleep,
    logger: ctx.logger,
    metrics: ctx.metrics,
    // A read-back that keeps failing is answered 503 and recovered later, not retried for long here.
    maxThrottleRetries: 1,
    requestTimeoutMs: 10_000,
  });
}
