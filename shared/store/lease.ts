import { randomUUID } from 'node:crypto';
import { AppError } from '../domain/errors';
import type { Clock, Store } from '../ports';
import { releaseFencedRow, takeFencedRow } from './fenced-row';
import { keys } from './table-design';

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
 * Takes the lease; it expires by itself after `ttlSeconds`, so a crashed holder blocks
 * others for at most that long. Returns undefined when someone else holds it.
 */
export async function acquireLease(
  store: Store,
  clock: Clock,
  name: string,
  owner: string,
  ttlSeconds: number,
): Promise<Lease | undefined> {
  const fence = await takeFencedRow(store, clock, keys.lease(name), ttlSeconds, { owner, acquiredAt: clock.now() });
  return fence === undefined ? undefined : { name, owner, fence };
}

/** Releases the lease if it is still ours; false when it had expired and was taken over. */
export function releaseLease(store: Store, clock: Clock, lease: Lease): Promise<boolean> {
  return releaseFencedRow(store, clock, keys.lease(lease.name), lease.fence, { owner: lease.owner, releasedAt: clock.now() });
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
export async function withLease<T>(
  ctx: { store: Store; clock: Clock },
  name: string,
  fn: () => Promise<T>,
  options: WithLeaseOptions = {},
): Promise<T> {
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
