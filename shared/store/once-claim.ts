import type { Clock, Item, Key, Store } from '../ports';
import { releaseFencedRow, takeFencedRow } from './fenced-row';
import { ttlIn } from './table-design';

/**
 * "Do this once" claims: one row per piece of work, first `in_progress` with a short lease
 * (its `ttl`), then `done` once the work's effects are durable. An attempt that dies
 * between the two leaves a lease that lapses by itself (the store reads an expired row as
 * absent), so a later attempt of the same work takes it over instead of taking it for a
 * duplicate. Only `done` means "already happened".
 *
 * A row without `state` was written before claims had one; it was written after the work,
 * so it reads as done.
 */

export type OnceClaim = { kind: 'claimed'; fence: number } | { kind: 'done'; item: Item } | { kind: 'busy'; leaseEndsAtMs: number };

/** A claim this attempt holds: its key and the fence that lets only this attempt release it. */
export interface HeldClaim {
  key: Key;
  fence: number;
}

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
    const fence = await takeFencedRow(store, clock, key, leaseSeconds, { ...attrs, state: 'in_progress' });
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

/** The row that marks the work done (kept `ttlSeconds`), for a caller that writes several at once. */
export function doneMark(clock: Clock, key: Key, ttlSeconds: number, attrs: Record<string, unknown> = {}): Item {
  return { ...attrs, ...key, state: 'done', ttl: ttlIn(clock.now(), ttlSeconds) };
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
 * Gives the claim back so the next attempt may take it at once, only if this attempt still
 * holds it (fenced-row.ts). A claim taken over, or marked done, since is left alone:
 * returns false then.
 */
export function releaseOnce(store: Store, clock: Clock, held: HeldClaim): Promise<boolean> {
  return releaseFencedRow(store, clock, held.key, held.fence, { state: 'released' });
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
