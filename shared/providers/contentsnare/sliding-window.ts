import { maxHonouredRetryAfterMs } from './retry-after';

/**
 * The arithmetic of the collection service's rate limit, kept pure so it can be proved
 * and tested without I/O.
 *
 * The service allows N calls of a kind in every sliding window of W ms. A token bucket
 * refilling continuously does not hold that (a full bucket plus its refill lets ~2N
 * through within one window), so we keep a log of the last N granted send times
 * ("slots") and hand out slots by reservation:
 *
 *   slot = max(now, blockedUntil, log[len - N] + W + margin)
 *
 * Slots only grow (blockedUntil only grows, and every term is >= the one that fixed the
 * previous slot), and slot[i + N] >= slot[i] + W + margin for every i; so any window of
 * length W + margin holds at most N slots. A caller whose slot lies in the future sleeps
 * until it: one write per caller, no thundering herd when capacity frees up.
 */
export interface WindowPolicy {
  /** Grants allowed per window. */
  limit: number;
  windowMs: number;
  /** Added to the window: latency jitter between taking a slot and the request's arrival. */
  marginMs: number;
}

export interface BucketState {
  /** Send times granted (epoch ms), ascending; at most `limit` kept. */
  grants: number[];
  /** No grant before this time (a 429's Retry-After). */
  blockedUntil?: number;
}

/** The earliest send time at or after `now` that keeps the window's promise. */
export function earliestSlot(state: BucketState, now: number, policy: WindowPolicy): number {
  // A block stored before blocks were capped holds nobody back past the cap.
  let slot = Math.max(now, Math.min(state.blockedUntil ?? 0, now + maxHonouredRetryAfterMs));
  const { grants } = state;
  if (grants.length >= policy.limit) {
    const nthMostRecent = grants[grants.length - policy.limit] ?? 0;
    slot = Math.max(slot, nthMostRecent + policy.windowMs + policy.marginMs);
  }
  return slot;
}

/** The state after granting `slot`: only the last `limit` grants can constrain a future slot. */
export function withGrant(state: BucketState, slot: number, policy: WindowPolicy): BucketState {
  const grants = [...state.grants, slot].slice(-policy.limit);
  return state.blockedUntil === undefined ? { grants } : { grants, blockedUntil: state.blockedUntil };
}

/** Until when the item must live: past its last slot and block, plus a window. */
export function expiresAt(state: BucketState, policy: WindowPolicy): number {
  const last = Math.max(state.grants[state.grants.length - 1] ?? 0, state.blockedUntil ?? 0);
  return last + policy.windowMs + policy.marginMs;
}

/** The most entries of `times` inside any half-open window [t, t + windowMs). */
export function maxInAnyWindow(times: number[], windowMs: number): number {
  const sorted = [...times].sort((a, b) => a - b);
  let best = 0;
  let start = 0;
  for (let end = 0; end < sorted.length; end++) {
    while ((sorted[end] ?? 0) - (sorted[start] ?? 0) >= windowMs) start++;
    best = Math.max(best, end - start + 1);
  }
  return best;
}
