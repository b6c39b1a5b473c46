import type { Store } from '../ports';
import { ConditionFailedError } from '../domain/errors';
import { keys, ttlIn } from '../store/table-design';
import { putCoalesced } from '../store/coalesced-puts';

/**
 * How long an attempt holds an event before another worker may try it: twice the 10 s POST
 * timeout, so a live attempt is not doubled, and short, so an event whose worker died (a
 * killed process, a timed-out function) is tried again soon. A lease that passes while its
 * attempt still runs costs at most a second POST with the same event id.
 */
export const inProgressLeaseSeconds = 20;
/** Delivered events are remembered this long: a commit or tag is announced once within it. */
export const doneTtlSeconds = 30 * 24 * 3600;

export type ClaimResult = { kind: 'claimed' } | { kind: 'done' } | { kind: 'busy'; retryInSeconds: number };

/**
 * Claims an event for delivery so that two copies processed at once reach the agent
 * runtime once: the first takes an in-progress lease; the second sees it (retry later)
 * or sees it done (drop).
 */
export async function claimEvent(store: Store, eventId: string, nowMs: number): Promise<ClaimResult> {
  const key = keys.dispatchClaim(eventId);
  try {
    await store.put({ ...key, state: 'in_progress', ttl: ttlIn(nowMs, inProgressLeaseSeconds) }, { ifNotExists: true });
    return { kind: 'claimed' };
  } catch (e) {
    if (!(e instanceof ConditionFailedError)) throw e;
  }
  const existing = await store.get(key);
  if (existing?.state === 'done') return { kind: 'done' };
  const ttl = typeof existing?.ttl === 'number' ? existing.ttl : Math.floor(nowMs / 1000) + inProgressLeaseSeconds;
  return { kind: 'busy', retryInSeconds: Math.max(5, ttl - Math.floor(nowMs / 1000)) };
}

/** Marks the event delivered; the marks of events answered in the same turn share one call (coalesced-puts.ts). */
export async function markDone(store: Store, eventId: string, nowMs: number): Promise<void> {
  await putCoalesced(store, [{ ...keys.dispatchClaim(eventId), state: 'done', ttl: ttlIn(nowMs, doneTtlSeconds) }]);
}

export async function releaseClaim(store: Store, eventId: string): Promise<void> {
  await store.delete(keys.dispatchClaim(eventId));
}
