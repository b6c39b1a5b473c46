import type { AppContext } from '../../../ports/app-context';
import { ConnectionRepo } from '../../../store/connection-repo';
import { secretNames, type Connection, type Endpoint } from '../../../domain/model';
import { EndpointRepo } from '../../../store/endpoint-repo';

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
/**
 * A read in flight for longer than this is not joined (real time): a healthy read takes a
 * few ms, and a hung store must not hold the deliveries that come after it.
 */
const joinWindowMs = 200;

interface Entry {
  routing: EndpointRouting;
  expiresAt: number;
}

interface Cache {
  entries: Map<string, Entry>;
  /** Reads in flight, by endpoint: concurrent misses share one (see endpointRouting). */
  loading: Map<string, { read: Promise<EndpointRouting | undefined>; startedAt: number }>;
}

// One cache per AppContext, i.e. per container (deps.ts builds the context once per cold start).
const caches = new WeakMap<object, Cache>();

async function load(ctx: Pick<AppContext, 'store' | 'secrets'>, endpointId: string): Promise<EndpointRouting | undefined> {
  const endpoint = await new EndpointRepo(ctx.store).get(endpointId);
  if (!endpoint) return undefined;
  const [secret, connection] = await Promise.all([
    ctx.secrets.get(secretNames.endpointSecret(endpoint.id)),
    new ConnectionRepo(ctx.store).get(endpoint.connectionId),
  ]);
  return { endpoint, secret, connection };
}

/**
 * The endpoint's routing facts, from the container's cache when fresh, so that a steady
 * stream of deliveries costs one conditional write, one Query and one send each instead
 * of two more GetItems. Only complete answers are cached: an unknown endpoint, a missing
 * secret or connection is read again next time (fail closed, and new hooks work at once).
 * Deliveries that miss while a read for the same endpoint is in flight (for under 200 ms)
 * wait for that read instead of starting their own: under a burst on a cold or expired
 * entry, each one reading for itself multiplied the store calls by three just when the
 * process was slowest, and held the first deliveries for seconds.
 * `fresh` bypasses the cache (the caller saw a signature mismatch: the secret may be new).
 */
export async function endpointRouting(
  ctx: Pick<AppContext, 'store' | 'secrets' | 'clock'>,
  endpointId: string,
  fresh = false,
): Promise<(EndpointRouting & { fromCache: boolean }) | undefined> {
  let cache = caches.get(ctx);
  if (!cache) {
    cache = { entries: new Map(), loading: new Map() };
    caches.set(ctx, cache);
  }
  const { entries, loading } = cache;
  const hit = entries.get(endpointId);
  if (hit && !fresh && hit.expiresAt > ctx.clock.now()) return { ...hit.routing, fromCache: true };
  const inFlight = fresh ? undefined : loading.get(endpointId);
  let pending = inFlight && performance.now() - inFlight.startedAt < joinWindowMs ? inFlight.read : undefined;
  if (!pending) {
    const read = load(ctx, endpointId).then((routing) => {
      entries.delete(endpointId);
      if (routing?.secret !== undefined && routing.connection !== undefined) {
        if (entries.size >= maxEntries) entries.delete(entries.keys().next().value as string);
        entries.set(endpointId, { routing, expiresAt: ctx.clock.now() + endpointCacheTtlMs });
      }
      return routing;
    });
    const entry = { read, startedAt: performance.now() };
    loading.set(endpointId, entry);
    const done = () => {
      if (loading.get(endpointId) === entry) loading.delete(endpointId);
    };
    read.then(done, done);
    pending = read;
  }
  const routing = await pending;
  return routing && { ...routing, fromCache: false };
}
