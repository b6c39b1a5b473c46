import type { Clock, Item, Key, Sleep, Store } from '../ports';
import { putCoalesced } from './coalesced-puts';
import { releaseFencedRow, takeFencedRow } from './fenced-row';
import { ttlIn } from './table-design';

/**
 * The one way to do something once, across workers: one row per piece of work, first
 * `in_progress` with a short lease (its `ttl`) and a fence (its `version`), then `done` once
 * the work's effects are durable. An attempt that dies between the two leaves a lease that
 * lapses by itself (the store reads an expired row as absent), so a later attempt of the same
 * work takes it over instead of taking it for a duplicate. Only `done` means "already
 * happened"; only the holder of the current fence can give the claim back, so an attempt whose
 * lease lapsed never frees the claim of the attempt that took over.
 *
 * Every "once" goes through here: intake delivery claims, dispatch claims, and the named
 * leases of lease.ts (a lease is a claim that is given back, never marked done).
 *
 * Rows written by older code stay readable: a row without `state` was written after the work
 * (a plain claim), so it reads as done; an `in_progress` row without a fence reads as busy
 * until its lease lapses.
 */

/** What a claim row says. */
export type ClaimState = 'in_progress' | 'done' | 'released';

/** A claim this attempt holds: its key and the fence that lets only this attempt release it. */
export interface HeldClaim {
  key: Key;
  fence: number;
}

export type OnceClaim = { kind: 'claimed'; fence: number } | { kind: 'done'; item: Item } | { kind: 'busy'; leaseEndsAtMs: number };

/**
 * Takes the claim with a conditional put that succeeds when no live row exists (never
 * claimed, released, or a lapsed lease). Otherwise reports who has it: `done`, or `busy`
 * with the end of the other attempt's lease. `attrs` are stored with the row.
 */
export async function claimOnce(
  store: Store,
  clock: Clock,
  key: Key,
  leaseSeconds: number,
  attrs: Record<string, unknown> = {},
): Promise<OnceClaim> {
  // Twice at most: a lease can lapse between the failed put and the read.
  for (let i = 0; i < 2; i++) {
    const state: ClaimState = 'in_progress';
    const fence = await takeFencedRow(store, clock, key, leaseSeconds, { ...attrs, state });
    if (fence !== undefined) return { kind: 'claimed', fence };
    const existing = await store.get(key, { consistent: true });
    if (!existing) continue;
    if (existing.state === 'in_progress') {
      const ttl = typeof existing.ttl === 'number' ? existing.ttl : ttlIn(clock.now(), leaseSeconds);
      return { kind: 'busy', leaseEndsAtMs: ttl * 1000 };
    }
    return { kind: 'done', item: existing };
  }
  return { kind: 'busy', leaseEndsAtMs: clock.now() };
}

export interface WaitForClaimOptions {
  leaseSeconds: number;
  attrs?: Record<string, unknown>;
  /** How long to keep trying while another attempt holds it (ms on the injected clock). */
  waitMs: number;
  /** The pause before try `attempt + 1` (0-based). */
  pauseMs: (attempt: number) => number;
  /** Ends the wait early (the caller's answer is due): the last verdict, `busy`, is returned. */
  signal?: AbortSignal;
}

/**
 * `claimOnce`, tried again while another attempt holds the claim, for up to `waitMs` (on the
 * injected clock and sleep, so tests run the wait in virtual time). Returns the first
 * `claimed` or `done`, else the last `busy`.
 */
export async function waitForClaim(
  ctx: { store: Store; clock: Clock; sleep: Sleep },
  key: Key,
  options: WaitForClaimOptions,
): Promise<OnceClaim> {
  const giveUpAt = ctx.clock.now() + options.waitMs;
  for (let attempt = 0; ; attempt++) {
    const claim = await claimOnce(ctx.store, ctx.clock, key, options.leaseSeconds, options.attrs);
    if (claim.kind !== 'busy') return claim;
    const left = giveUpAt - ctx.clock.now();
    if (options.signal?.aborted || left <= 0) return claim;
    await ctx.sleep(Math.min(left, options.pauseMs(attempt)));
  }
}

/** The row that marks the work done (kept `ttlSeconds`), for a caller that writes several at once. */
export function doneMark(clock: Clock, key: Key, ttlSeconds: number, attrs: Record<string, unknown> = {}): Item {
  const state: ClaimState = 'done';
  return { ...attrs, ...key, state, ttl: ttlIn(clock.now(), ttlSeconds) };
}

/** Marks the work done (kept `ttlSeconds`): unconditional, since whoever finished it made it true. */
export async function finishOnce(
  store: Store,
  clock: Clock,
  key: Key,
  ttlSeconds: number,
  attrs: Record<string, unknown> = {},
): Promise<void> {
  await store.put(doneMark(clock, key, ttlSeconds, attrs));
}

/**
 * Marks several pieces of work done, sharing one write with every other mark made in the same
 * turn of the event loop (coalesced-puts.ts): the marks of work that finished together cost
 * one call. On failure the caller is told, though some marks may be written (they are
 * idempotent, written again on the next attempt).
 */
export function finishTogether(store: Store, marks: readonly Item[]): Promise<void> {
  return putCoalesced(store, marks);
}

/**
 * Gives the claim back so the next attempt may take it at once, only if this attempt still
 * holds it (fenced-row.ts). A claim taken over, or marked done, since is left alone:
 * returns false then. `attrs` are stored with the released row (who released it).
 */
export function releaseOnce(store: Store, clock: Clock, held: HeldClaim, attrs: Record<string, unknown> = {}): Promise<boolean> {
  const state: ClaimState = 'released';
  return releaseFencedRow(store, clock, held.key, held.fence, { ...attrs, state });
}

/**
 * What a claim's row says now, read without taking it: `done`, `in_progress` (a live lease:
 * an attempt may be running), or `none` (never claimed, released, or a lease that lapsed,
 * which the store reads as absent). A row without `state` reads as done (see above).
 */
export async function onceState(store: Store, key: Key): Promise<'done' | 'in_progress' | 'none'> {
  const row = await store.get(key);
  if (!row) return 'none';
  return row.state === 'in_progress' ? 'in_progress' : 'done';
}
