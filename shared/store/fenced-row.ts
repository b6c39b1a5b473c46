import { randomInt } from 'node:crypto';
import { ConditionFailedError } from '../domain/errors';
import type { Clock, Key, Store } from '../ports';
import { ttlIn } from './table-design';

/**
 * A row taken by one holder at a time, with a fence (`version`) that names this taking:
 * the building block of leases (lease.ts) and once-claims (once-claim.ts).
 */

/**
 * Takes `key` with a conditional put that succeeds only when no live row exists (never
 * taken, released, or expired: the store reads an expired row as absent). The row expires
 * by itself after `ttlSeconds`, so a crashed holder blocks others for at most that long.
 * Returns the fence, or undefined when someone else holds the row.
 */
export async function takeFencedRow(
  store: Store,
  clock: Clock,
  key: Key,
  ttlSeconds: number,
  attrs: Record<string, unknown>,
): Promise<number | undefined> {
  const fence = randomInt(1, 2 ** 47);
  try {
    await store.put({ ...attrs, ...key, version: fence, ttl: ttlIn(clock.now(), ttlSeconds) }, { ifNotExists: true });
    return fence;
  } catch (e) {
    if (e instanceof ConditionFailedError) return undefined;
    throw e;
  }
}

/**
 * Gives the row back if this taking still holds it. The Store port has no delete
 * conditioned on an attribute, so this is a conditional put on the fence that leaves an
 * already-expired row: it reads as absent at once, the table's TTL removes it, and a row
 * someone else took after ours expired is never touched (an unconditional delete would
 * free it under its new holder). Returns false when it was taken over since.
 */
export async function releaseFencedRow(
  store: Store,
  clock: Clock,
  key: Key,
  fence: number,
  attrs: Record<string, unknown>,
): Promise<boolean> {
  try {
    await store.put({ ...attrs, ...key, version: fence, ttl: ttlIn(clock.now(), -1) }, { ifVersion: fence });
    return true;
  } catch (e) {
    if (e instanceof ConditionFailedError) return false;
    throw e;
  }
}
