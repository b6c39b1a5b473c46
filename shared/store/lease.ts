import { randomUUID } from 'node:crypto';
import { AppError } from '../domain/errors';
import type { Clock, Sleep, Store } from '../ports';
import { claimOnce, releaseOnce } from './once-claim';
import { giveBack, withClaim } from './with-claim';
import { keys } from './table-design';

/**
 * Named leases: one claim row per name (`keys.lease(name)`), taken and given back through
 * the once-claim module (once-claim.ts) and never marked done. Used to keep the changes to
 * one webhook endpoint in one line (there are no transactions) and to let one worker refresh
 * a connection's token while the others wait for its result.
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
  const claim = await claimOnce(store, clock, keys.lease(name), ttlSeconds, { owner, acquiredAt: clock.now() });
  return claim.kind === 'claimed' ? { name, owner, fence: claim.fence } : undefined;
}

/** Releases the lease if it is still ours; false when it had expired and was taken over. */
export function releaseLease(store: Store, clock: Clock, lease: Lease): Promise<boolean> {
  return releaseOnce(store, clock, { key: keys.lease(lease.name), fence: lease.fence }, { owner: lease.owner, releasedAt: clock.now() });
}

/**
 * Runs `fn` holding the named lease when it is free at once (no wait), giving it back owner-safely
 * when `fn` settles, whichever way; `{ held: false }` when another worker holds it, and `fn` did not run.
 */
export async function tryLease<T>(
  ctx: { store: Store; clock: Clock },
  lease: { name: string; owner: string; ttlSeconds: number },
  fn: () => Promise<T>,
): Promise<{ held: true; value: T } | { held: false }> {
  const { name, owner } = lease;
  const run = await withClaim(
    ctx,
    {
      key: keys.lease(name),
      leaseSeconds: lease.ttlSeconds,
      attrs: { owner, acquiredAt: ctx.clock.now() },
      releaseAttrs: () => ({ owner, releasedAt: ctx.clock.now() }),
    },
    async () => giveBack(await fn()),
  );
  return run.kind === 'ran' ? { held: true, value: run.value } : { held: false };
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
 * Runs `fn` while holding the named lease, waiting `waitMs` (through the injected sleep)
 * between up to `attempts` tries, then answering `conflict` (the caller may retry).
 * Released owner-safely when `fn` settles, whichever way.
 */
export async function withLease<T>(
  ctx: { store: Store; clock: Clock; sleep: Sleep },
  name: string,
  fn: () => Promise<T>,
  options: WithLeaseOptions = {},
): Promise<T> {
  const attempts = options.attempts ?? 60;
  const waitMs = options.waitMs ?? 100;
  const owner = options.owner ?? randomUUID();
  // Given back when `fn` settles, whichever way; a failed give-back only delays the next holder until the lease expires.
  const run = await withClaim(
    ctx,
    {
      key: keys.lease(name),
      leaseSeconds: options.ttlSeconds ?? 30,
      attrs: { owner, acquiredAt: ctx.clock.now() },
      wait: { waitMs: (attempts - 1) * waitMs, pauseMs: () => waitMs },
      releaseAttrs: () => ({ owner, releasedAt: ctx.clock.now() }),
    },
    async () => giveBack(await fn()),
  );
  if (run.kind !== 'ran') throw new AppError('conflict', `Another change to ${name} is in progress; try again`);
  return run.value;
}
