import type { Clock, Item, Store } from '../ports';
import { claimOnce, doneMark, finishTogether, releaseOnce, type HeldClaim } from '../store/once-claim';
import { keys } from '../store/table-design';

/**
 * How long an attempt holds an event before another worker may try it: twice the 10 s POST
 * timeout, so a live attempt is not doubled, and short, so an event whose worker died (a
 * killed process, a timed-out function) is tried again soon. A lease that passes while its
 * attempt still runs costs at most a second POST with the same event id.
 */
export const inProgressLeaseSeconds = 20;
/** Delivered events are remembered this long: a commit or tag is announced once within it. */
export const doneTtlSeconds = 30 * 24 * 3600;

export type ClaimResult = { kind: 'claimed'; held: HeldClaim } | { kind: 'done' } | { kind: 'busy'; retryInSeconds: number };

/**
 * Claims an event for delivery so that two copies processed at once reach the agent
 * runtime once: a once-claim on the event id (store/once-claim.ts). The first takes an
 * in-progress lease; the second sees it (retry once it may have lapsed) or sees it done (drop).
 */
export async function claimEvent(store: Store, clock: Clock, eventId: string): Promise<ClaimResult> {
  const key = keys.dispatchClaim(eventId);
  const claim = await claimOnce(store, clock, key, inProgressLeaseSeconds);
  if (claim.kind === 'claimed') return { kind: 'claimed', held: { key, fence: claim.fence } };
  if (claim.kind === 'done') return { kind: 'done' };
  return { kind: 'busy', retryInSeconds: Math.max(5, Math.ceil((claim.leaseEndsAtMs - clock.now()) / 1000)) };
}

/**
 * Marks the event delivered; the marks of events answered in the same turn share one call.
 * `also`: rows written in that call (the event's history).
 */
export function markDone(store: Store, clock: Clock, eventId: string, also: readonly Item[] = []): Promise<void> {
  return finishTogether(store, [doneMark(clock, keys.dispatchClaim(eventId), doneTtlSeconds), ...also]);
}

/**
 * Gives the claim back for the event's next try, only if this attempt still holds it: after
 * its lease lapsed another worker may have taken it over, and freeing that worker's claim
 * would let a third copy POST the event again.
 */
export function releaseClaim(store: Store, clock: Clock, held: HeldClaim): Promise<boolean> {
  return releaseOnce(store, clock, held);
}
