import type { Clock } from '../ports';
import type { ClaimSpec } from '../store/with-claim';
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

/**
 * The claim an event is delivered under, so that two copies processed at once reach the agent
 * runtime once: a once-claim on the event id (store/with-claim.ts). The first takes an
 * in-progress lease; the second sees it (retry once it may have lapsed) or sees it done (drop).
 * Its done mark shares one call with the marks of the events answered in the same turn (and
 * carries the event's history); an attempt that did not deliver gives it back for the next try,
 * only if it still holds it: after its lease lapsed another worker may have taken it over, and
 * freeing that worker's claim would let a third copy POST the event again.
 */
export function dispatchClaim(eventId: string, onReleaseFailed: (e: unknown) => void): ClaimSpec {
  return { key: keys.dispatchClaim(eventId), leaseSeconds: inProgressLeaseSeconds, doneTtlSeconds, together: true, onReleaseFailed };
}

/** When to look again at an event another worker is delivering: once its lease may have lapsed, at least 5 s on. */
export function busyRetrySeconds(clock: Clock, leaseEndsAtMs: number): number {
  return Math.max(5, Math.ceil((leaseEndsAtMs - clock.now()) / 1000));
}
