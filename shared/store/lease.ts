import { randomInt, randomUUID } from 'node:crypto';
import { AppError, ConditionFailedError } from '../domain/errors';
import type { Clock, Store } from '../ports';
import { keys, ttlIn } from './table-design';

/**
 * Named leases: one lock row per name (`keys.lease(name)`) in the table. Used to keep the
 * changes to one webhook endpoint in one line (there are no transactions) and to let one
 * worker refresh a connection's token while the others wait for its result.
 */

/** A held lease: `fence` identifies this acquisition, so only its holder can release it. */
export interface Lease {
  name: string;
  owner: string;
  fence: number;
}

/**
 * Takes the lease with a conditional put that succeeds only when no live lease exists; it
 * expires by itself after `ttlSeconds`, so a crashed holder blocks others for at most that
 * long. Returns undefined when someone else holds it.
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
 * and a lease someone else took after ours expired is never touched (an unconditional
 * delete would free it under its new holder).
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

export interface WithLeaseOptions {
  /** How long the lease holds if its holder dies (seconds). */
  ttlSeconds?: number;
  /** How many times to try before answering `conflict`. */
  attempts?: number;
  waitMs?: number;
  /** Who holds it, for the row; a fresh id per call by default. */
  owner?: string;
}

/**
 * Runs `fn` while holding the named lease, waiting `waitMs` between up to `attempts`
 * tries, then answering `conflict` (the caller may retry). Released owner-safely when
 * `fn` settles, whichever way.
 */
export async function withLease<T>(ctx: { store: Store; clock: Clock }, name: string, fn: () => Promise<T>, options: WithLeaseOptions = {}): Promise<T> {
  const attempts = options.attempts ?? 60;
  const owner = options.owner ?? randomUUID();
  let lease: Lease | undefined;
  for (let i = 0; !lease; i++) {
    lease = await acquireLease(ctx.store, ctx.clock, name, owner, options.ttlSeconds ?? 30);
    if (lease) break;
    if (i + 1 >= attempts) throw new AppError('conflict', `Another change to ${name} is in progress; try again`);
    await new Promise((r) => setTimeout(r, options.waitMs ?? 100));
  }
  try {
    return await fn();
  } finally {
    // A failed release only delays the next holder until the lease expires.
    await releaseLease(ctx.store, ctx.clock, lease).catch(() => undefined);
  }
}
