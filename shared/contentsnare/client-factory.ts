import type { ClientFactory } from '../tools/tool-step';
import type { Store } from '../ports';
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
    const { app } = ctx;
    let limiter = limiters.get(app.store);
    if (!limiter) {
      limiter = new ContentSnareRateLimiter({
        store: app.store,
        clock: app.clock,
        maxWaitMs: app.config.rateLimitMaxWaitSeconds * 1000,
        metrics: app.metrics,
        sleep: options.sleep ?? app.sleep,
        random: options.random,
        ...options.limits,
      });
      limiters.set(app.store, limiter);
    }
    return new ContentSnareClient({
      apiUrl: app.config.contentsnare.apiUrl,
      connection,
      tokens: app.tokens,
      fetch: app.fetch,
      clock: app.clock,
      limiter,
      sleep: options.sleep ?? app.sleep,
      logger: ctx.logger,
      metrics: app.metrics,
    });
  };
}
