import { randomInt } from 'node:crypto';
import { ConditionFailedError } from '../domain/errors';
import type { Clock, Store } from '../ports';
import { keys, ttlIn } from '../store/table-design';

/** A held lease: `fence` identifies this acquisition, so only its holder can release it. */
export interface Lease {
  name: string;
  owner: string;
  fence: number;
}

/**
 * A lock row in the table (`keys.lease(name)`), taken with a conditional put that succeeds
 * only when no live lease exists; it expires by itself after `ttlSeconds`, so a crashed
 * holder blocks others for at most that long. Returns undefined when someone else holds it.
 */
export async function acquireLease(store: Store, clock: Clock, name: string, owner: string, ttlSeconds: number): Promise<Lease | undefined> {
  const fence = randomInt(1, 2 ** 47);
  try {
    await store.put(
      { ...keys.lease(name), owner, version: fence, acquiredAt: clock.now(), ttl: ttlIn(clock.now(), ttlSeconds) },
      { ifNotExists: true },
    );
    return { name, owner, fence };
  } catch (e) {
    if (e instanceof ConditionFailedError) return undefined;
    throw e;
  }
}

/**
 * Releases the lease if it is still ours. The Store port has no delete conditioned on an
 * attribute, so release is a conditional put on the acquisition's fence (`version`) that
 * leaves an already-expired row: it reads as absent at once, the table's TTL removes it,
 * and a lease someone else took after ours expired is never touched.
 * Returns false when the lease had expired and was taken over.
 */
export async function releaseLease(store: Store, clock: Clock, lease: Lease): Promise<boolean> {
  try {
    await store.put(
      { ...keys.lease(lease.name), owner: lease.owner, version: lease.fence, releasedAt: clock.now(), ttl: ttlIn(clock.now(), -1) },
      { ifVersion: lease.fence },
    );
    return true;
  } catch (e) {
    if (e instanceof ConditionFailedError) return false;
    throw e;
  }
}
