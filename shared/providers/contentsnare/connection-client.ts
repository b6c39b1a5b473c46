import type { Connection } from '../../domain/model';
import type { AppContext } from '../../ports/app-context';
import type { Store } from '../../ports';
import { ContentSnareClient } from './client';
import { ContentSnareRateLimiter, type RateLimiterOptions, type Sleep } from './rate-limiter';

/** The limiter's knobs, for tests and the benchmark; production uses the defaults (10 s, 50 reads, 20 writes). */
export interface LimiterSettings {
  limits?: Pick<RateLimiterOptions, 'windowMs' | 'reads' | 'writes' | 'marginMs' | 'lateToleranceMs'>;
  /** Replaces the context's sleep (the benchmark's virtual time). */
  sleep?: Sleep;
  random?: () => number;
}

export interface SnareClientOptions {
  /**
   * How long a call waits for the limit before `rate_limited`, at most the configured
   * tool-step wait (the intake must answer within its deadline).
   */
  maxWaitMs?: number;
  /** Each distinct settings object keeps limiters of its own; without one, the process's are shared. */
  limiter?: LimiterSettings;
  /** How often a throttled call is tried again (the client's default otherwise). */
  maxThrottleRetries?: number;
  requestTimeoutMs?: number;
}

export type SnareClientContext = Pick<AppContext, 'store' | 'clock' | 'config' | 'metrics' | 'sleep' | 'tokens' | 'fetch' | 'logger'>;

const defaultSettings: LimiterSettings = {};

// The one cache of limiters: per settings, per store, per wait bound. Every limiter keeps the
// account's budget in the same table rows (RATE#<connection>#read|write), so hook changes,
// read-backs, the recovery check and the tool steps all share one budget per account, and a
// process's concurrent calls queue locally (keyed-batcher.ts) so that only processes race on the table.
const limiters = new WeakMap<LimiterSettings, WeakMap<Store, Map<number, ContentSnareRateLimiter>>>();

function limiterFor(ctx: SnareClientContext, maxWaitMs: number, settings: LimiterSettings): ContentSnareRateLimiter {
  let byStore = limiters.get(settings);
  if (!byStore) {
    byStore = new WeakMap();
    limiters.set(settings, byStore);
  }
  let byWait = byStore.get(ctx.store);
  if (!byWait) {
    byWait = new Map();
    byStore.set(ctx.store, byWait);
  }
  let limiter = byWait.get(maxWaitMs);
  if (!limiter) {
    limiter = new ContentSnareRateLimiter({
      store: ctx.store,
      clock: ctx.clock,
      maxWaitMs,
      metrics: ctx.metrics,
      sleep: settings.sleep ?? ctx.sleep,
      random: settings.random,
      ...settings.limits,
    });
    byWait.set(maxWaitMs, limiter);
  }
  return limiter;
}

/**
 * The partner API for one connection, within the account's shared rate limit: the one
 * builder of the client, for the tool steps (client-factory.ts) and for the product's own
 * calls. The token is read lazily by the client, so a dry run touches nothing.
 */
export function buildSnareClient(ctx: SnareClientContext, connection: Connection, options: SnareClientOptions = {}): ContentSnareClient {
  const settings = options.limiter ?? defaultSettings;
  const maxWaitMs = Math.min(options.maxWaitMs ?? Number.POSITIVE_INFINITY, ctx.config.rateLimitMaxWaitSeconds * 1000);
  return new ContentSnareClient({
    apiUrl: ctx.config.contentsnare.apiUrl,
    connection,
    tokens: ctx.tokens,
    fetch: ctx.fetch,
    clock: ctx.clock,
    limiter: limiterFor(ctx, maxWaitMs, settings),
    sleep: settings.sleep ?? ctx.sleep,
    logger: ctx.logger,
    metrics: ctx.metrics,
    ...(options.maxThrottleRetries !== undefined ? { maxThrottleRetries: options.maxThrottleRetries } : {}),
    ...(options.requestTimeoutMs !== undefined ? { requestTimeoutMs: options.requestTimeoutMs } : {}),
  });
}

/**
 * The product's own calls (hook changes, read-backs, the recovery check): a call that keeps
 * failing is answered 503 and recovered later, not retried for long here.
 */
export function snareClientFor(ctx: SnareClientContext, connection: Connection, options: { maxWaitMs?: number } = {}): ContentSnareClient {
  return buildSnareClient(ctx, connection, { ...options, maxThrottleRetries: 1, requestTimeoutMs: 10_000 });
}
