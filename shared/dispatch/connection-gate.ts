import { takesEvents, type Connection } from '../domain/model';
import type { AppContext } from '../ports/app-context';
import { ConnectionRepo } from '../store/connection-repo';

/**
 * How long a container trusts a connection's status before reading it again: a deleted or
 * suspended GitHub App installation stops its queued events within this time, and a busy
 * connection costs one read per this time, not one per event.
 */
export const connectionGateTtlMs = 5_000;
const maxEntries = 5_000;

interface Entry {
  /** Read once and shared: the events of one connection in one batch wait on the same read. */
  status: Promise<Connection['status'] | 'gone'>;
  expiresAt: number;
}

// One cache per AppContext, i.e. per container.
const caches = new WeakMap<object, Map<string, Entry>>();

/**
 * Whether events of this connection may still be delivered: not when its App installation
 * was deleted (`revoked`) or is suspended. A connection that is gone or needs reconnecting
 * still gets its queued events, as before (a hook's events need no token).
 */
export async function connectionTakesEvents(ctx: Pick<AppContext, 'store' | 'clock'>, connectionId: string): Promise<boolean> {
  let cache = caches.get(ctx);
  if (!cache) {
    cache = new Map();
    caches.set(ctx, cache);
  }
  const now = ctx.clock.now();
  let entry = cache.get(connectionId);
  if (!entry || entry.expiresAt <= now) {
    const status = new ConnectionRepo(ctx.store).get(connectionId).then((c) => c?.status ?? 'gone');
    const fresh: Entry = { status, expiresAt: now + connectionGateTtlMs };
    // A failed read is not kept: the next event reads again.
    status.catch(() => {
      if (cache.get(connectionId) === fresh) cache.delete(connectionId);
    });
    entry = fresh;
    cache.delete(connectionId);
    if (cache.size >= maxEntries) cache.delete(cache.keys().next().value as string);
    cache.set(connectionId, entry);
  }
  const status = await entry.status;
  return status === 'gone' || takesEvents(status);
}
