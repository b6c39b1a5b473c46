import type { AppContext } from '../app/context';
import { ConnectionRepo } from '../connections/connection-repo';
import { secretNames, type Connection, type Endpoint } from '../domain/model';
import { EndpointRepo } from '../subscriptions/endpoint-repo';

/** What the intake needs about an endpoint before it fans out. */
export interface EndpointRouting {
  endpoint: Endpoint;
  secret: string | undefined;
  connection: Connection | undefined;
}

/**
 * How long a container reuses an endpoint's record, secret and connection. Short: a
 * connection's allow-list change reaches triggers within it; deletions need no wait
 * (deleting a subscription removes it from the route Query, which is never cached).
 */
export const endpointCacheTtlMs = 30_000;
const maxEntries = 5_000;

interface Entry {
  routing: EndpointRouting;
  expiresAt: number;
}

// One cache per AppContext, i.e. per container (deps.ts builds the context once per cold start).
const caches = new WeakMap<object, Map<string, Entry>>();

async function load(ctx: Pick<AppContext, 'store' | 'secrets'>, endpointId: string): Promise<EndpointRouting | undefined> {
  const endpoint = await new EndpointRepo(ctx.store).get(endpointId);
  if (!endpoint) return undefined;
  const [secret, connection] = await Promise.all([ctx.secrets.get(secretNames.endpointSecret(endpoint.id)), new ConnectionRepo(ctx.store).get(endpoint.connectionId)]);
  return { endpoint, secret, connection };
}

/**
 * The endpoint's routing facts, from the container's cache when fresh, so that a steady
 * stream of deliveries costs one conditional write, one Query and one send each instead
 * of two more GetItems. Only complete answers are cached: an unknown endpoint, a missing
 * secret or connection is read again next time (fail closed, and new hooks work at once).
 * `fresh` bypasses the cache (the caller saw a signature mismatch: the secret may be new).
 */
export async function endpointRouting(ctx: Pick<AppContext, 'store' | 'secrets' | 'clock'>, endpointId: string, fresh = false): Promise<(EndpointRouting & { fromCache: boolean }) | undefined> {
  let cache = caches.get(ctx);
  if (!cache) caches.set(ctx, (cache = new Map()));
  const now = ctx.clock.now();
  const hit = cache.get(endpointId);
  if (hit && !fresh && hit.expiresAt > now) return { ...hit.routing, fromCache: true };
  cache.delete(endpointId);
  const routing = await load(ctx, endpointId);
  if (routing?.secret !== undefined && routing.connection !== undefined) {
    if (cache.size >= maxEntries) cache.delete(cache.keys().next().value as string);
    cache.set(endpointId, { routing, expiresAt: now + endpointCacheTtlMs });
  }
  return routing && { ...routing, fromCache: false };
}
