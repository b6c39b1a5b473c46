import type { ClientFactory } from '../../tools/tool-step';
import type { Store } from '../../ports';
import { ContentSnareClient } from './client';
import { ContentSnareRateLimiter, type RateLimiterOptions, type Sleep } from './rate-limiter';

/** Knobs for tests and the benchmark; production uses the defaults (10 s, 50 reads, 20 writes). */
export interface ContentSnareFactoryOptions {
  limits?: Pick<RateLimiterOptions, 'windowMs' | 'reads' | 'writes' | 'marginMs' | 'lateToleranceMs'>;
  /** Replaces the context's sleep (the benchmark's virtual time). */
  sleep?: Sleep;
  random?: () => number;
}

/**
 * Builds the client factory of the tool surface. One limiter per store per factory, so a
 * process's concurrent calls queue locally (see keyed-batcher.ts) and only processes race
 * on the table. The token is read lazily by the client, so a dry run touches nothing.
 */
export function contentSnareClientFactory(options: ContentSnareFactoryOptions = {}): ClientFactory<ContentSnareClient> {
  const limiters = new WeakMap<Store, ContentSnareRateLimiter>();
  return async (connection, ctx) => {
    let limiter = limiters.get(ctx.store);
    if (!limiter) {
      limiter = new ContentSnareRateLimiter({
        store: ctx.store,
        clock: ctx.clock,
        maxWaitMs: ctx.config.rateLimitMaxWaitSeconds * 1000,
        metrics: ctx.metrics,
        sleep: options.sleep ?? ctx.sleep,
        random: options.random,
        ...options.limits,
      });
      limiters.set(ctx.store, limiter);
    }
    return new ContentSnareClient({
      apiUrl: ctx.config.contentsnare.apiUrl,
      connection,
      tokens: ctx.tokens,
      fetch: ctx.fetch,
      clock: ctx.clock,
      limiter,
      sleep: options.sleep ?? ctx.sleep,
      logger: ctx.logger,
      metrics: ctx.metrics,
    });
  };
}
