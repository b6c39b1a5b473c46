import type { Store } from '../ports';

/** A planner's row: where its next round's order starts. */
export interface PlanRowKey {
  pk: string;
  sk: string;
}

/**
 * A round's work in order, from the rotating start the last round left. When all fit, the
 * next start moves half-way round, so what came last this round (and what a slow round left
 * undone) comes early in the next; when they do not, it is the first one not planned, so
 * every one is planned within ceil(count / max) rounds. `keyOf` orders them (a tenant's side
 * by side) and names the start.
 */
export function rotate<T>(
  all: readonly T[],
  keyOf: (t: T) => string,
  start: string | undefined,
  max: number,
): { planned: T[]; next?: string } {
  const sorted = all.map((t) => ({ t, key: keyOf(t) })).sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
  const n = sorted.length;
  if (n === 0) return { planned: [] };
  const found = start === undefined ? 0 : sorted.findIndex((x) => x.key >= start);
  const from = Math.max(found, 0);
  const count = Math.min(max, n);
  const planned = Array.from({ length: count }, (_, i) => sorted[(from + i) % n]?.t as T);
  const step = count < n ? count : Math.ceil(n / 2);
  const next = sorted[(from + step) % n]?.key;
  return next === undefined ? { planned } : { planned, next };
}

/** The start the last round left in the planner's row (read strongly consistent: the last round wrote it a moment ago). */
export async function loadPlanStart(store: Store, key: PlanRowKey): Promise<string | undefined> {
  const row = await store.get<{ pk: string; sk: string; next?: unknown }>(key, { consistent: true });
  return typeof row?.next === 'string' ? row.next : undefined;
}

/** Keeps the next round's start (one write a round). */
export async function savePlanStart(store: Store, key: PlanRowKey, next: string | undefined, nowMs: number): Promise<void> {
  await store.put({ ...key, ...(next !== undefined ? { next } : {}), plannedAt: new Date(nowMs).toISOString() });
}
