import { platformKey } from '../../test/helpers/runtime-support';

/** What the product says of one delivery's event: its status in the event history and when its next try is due. */
export interface EventState {
  status: string;
  nextTryAt?: number;
}

/**
 * Where every accepted delivery is at the end of a soak: at the agent runtime, in the
 * dead-letter queue, waiting for a next try its history schedules, or nowhere (lost: what the
 * soak exists to catch).
 */
export interface Accounting {
  accepted: number;
  atAgent: number;
  deadLettered: number;
  /** Neither delivered nor dead-lettered yet, with a try still due (`retrying` or `queued` in the history). */
  waiting: number;
  /** The latest next try among the waiting ones (epoch ms). */
  lastNextTryAt?: number;
  /** Delivery ids the product holds nowhere: not delivered, not in the DLQ, no try due. */
  lost: string[];
  /** What the history says of the lost ones, counted by status (`none`: no history row). */
  lostStatuses?: Record<string, number>;
}

async function getJson(url: string): Promise<unknown> {
  const res = await fetch(url, { headers: { authorization: `Bearer ${platformKey}` }, signal: AbortSignal.timeout(30_000) });
  if (res.status !== 200) throw new Error(`GET ${url}: ${res.status} ${await res.text()}`);
  return res.json();
}

/** The delivery ids of the events in the dead-letter queue, as the operator's route answers (`npm run dlq -- list`). */
export async function deadLetteredDeliveries(base: string): Promise<Set<string>> {
  const body = (await getJson(`${base}/admin/dlq?max=1000`)) as { deadLetters: Array<{ deliveryId?: string }> };
  return new Set(body.deadLetters.flatMap((d) => (d.deliveryId ? [d.deliveryId] : [])));
}

/** The event history by delivery id (`GET /events`, every page), only the given statuses when named. */
export async function historyByDelivery(base: string, statuses?: readonly string[]): Promise<Map<string, EventState>> {
  const out = new Map<string, EventState>();
  for (const status of statuses ?? ['']) {
    let cursor: string | undefined;
    do {
      const q = new URLSearchParams({ limit: '100', ...(status ? { status } : {}), ...(cursor ? { cursor } : {}) });
      const page = (await getJson(`${base}/events?${q}`)) as {
        events: Array<{ deliveryId: string; status: string; nextTryAt?: string }>;
        nextCursor?: string;
      };
      for (const e of page.events)
        out.set(e.deliveryId, { status: e.status, ...(e.nextTryAt ? { nextTryAt: Date.parse(e.nextTryAt) } : {}) });
      cursor = page.nextCursor;
    } while (cursor);
  }
  return out;
}

/** Sorts each accepted delivery into one place: the agent runtime, the DLQ, a try still due, or lost. */
export async function account(base: string, accepted: readonly string[], atAgent: (deliveryId: string) => boolean): Promise<Accounting> {
  if (accepted.every(atAgent)) return { accepted: accepted.length, atAgent: accepted.length, deadLettered: 0, waiting: 0, lost: [] };
  // The product is read first, the acknowledgments after: an event delivered meanwhile is then
  // counted at the agent runtime, never taken for lost because its history row moved on.
  const dlq = await deadLetteredDeliveries(base);
  const pending = await historyByDelivery(base, ['queued', 'retrying']);
  const open = accepted.filter((d) => !atAgent(d));
  let deadLettered = 0;
  let waiting = 0;
  let lastNextTryAt: number | undefined;
  const lost: string[] = [];
  for (const d of open) {
    if (dlq.has(d)) deadLettered++;
    else if (pending.has(d)) {
      waiting++;
      const next = pending.get(d)?.nextTryAt;
      if (next !== undefined) lastNextTryAt = Math.max(lastNextTryAt ?? 0, next);
    } else lost.push(d);
  }
  let lostStatuses: Record<string, number> | undefined;
  if (lost.length > 0) {
    const all = await historyByDelivery(base);
    lostStatuses = {};
    for (const d of lost) {
      const status = all.get(d)?.status ?? 'none';
      lostStatuses[status] = (lostStatuses[status] ?? 0) + 1;
    }
  }
  return {
    ...(lostStatuses ? { lostStatuses } : {}),
    accepted: accepted.length,
    atAgent: accepted.length - open.length,
    deadLettered,
    waiting,
    ...(lastNextTryAt !== undefined ? { lastNextTryAt } : {}),
    lost,
  };
}
