import type { ClientFactory } from '../../tools/tool-step';
import type { ContentSnareClient } from './client';
import { buildSnareClient, type LimiterSettings } from './connection-client';

/** Knobs for tests and the benchmark; production uses the defaults (10 s, 50 reads, 20 writes). */
export type ContentSnareFactoryOptions = LimiterSettings;

/**
 * The client factory of the tool surface: the one builder (connection-client.ts), waiting
 * for the limit at most the configured tool-step wait. Without knobs its limiters are the
 * process's own, shared with the product's calls; with them, this factory's own.
 */
export function contentSnareClientFactory(options: ContentSnareFactoryOptions = {}): ClientFactory<ContentSnareClient> {
  const limiter = options.limits || options.sleep || options.random ? { ...options } : undefined;
  return async (connection, ctx) => buildSnareClient(ctx, connection, limiter ? { limiter } : {});
}
