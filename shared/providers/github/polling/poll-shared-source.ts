import type { AppContext } from '../../../ports/app-context';
import { triggerCatalogOf } from '../../../ports/provider-contract';
import type { Connection, Subscription } from '../../../domain/model';
import { buildTriggerEvents, enqueueEvents } from '../../../dispatch/fan-out';
import type { RateBudget } from './poll-fetch';
import { maxSeen, readCursor, writeCursor, type PollCursor } from './poll-cursor';
import { fetchNewestPages, type PagesCursor } from './poll-pages';
import { itemIdentity, type PollSource } from './poll-source';
import { advanceCursor, freshItems, writeSourceCursor, type SourceCursor } from './source-cursor';

export interface SourceOutcome {
  /** Events enqueued, or `not_modified` (the code host answered 304). */
  result: number | 'not_modified';
  rate?: RateBudget;
}

/** One distinct (connection, list) and the subscriptions reading it. */
export interface SharedSource {
  /** `sourceKeyFor(connectionId, path)`, for logs. */
  key: string;
  connectionId: string;
  source: PollSource;
  subs: Subscription[];
}

/**
 * Subscriptions made before shared cursors keep their own (`since` and every id they
 * announced): the first read of such a source is unconditional unless they all stand at
 * the same ETag, and reads back to the oldest of them.
 */
function legacyStart(cursors: ReadonlyArray<PollCursor | undefined>): PagesCursor | undefined {
  const held = cursors.filter((c) => c !== undefined);
  const [first] = held;
  if (first === undefined) return undefined;
  const since = held.map((c) => c.since).reduce((a, b) => (Date.parse(a) <= Date.parse(b) ? a : b));
  const etag = held.every((c) => c.etag !== undefined && c.etag === first.etag) && held.length === cursors.length ? first.etag : undefined;
  return { etag, since, seen: [] };
}

/**
 * One round for one shared source: one conditional read (more pages only while they hold
 * new items), the items new to the source worked out from its bounded cursor, then fanned
 * out to each subscription past its own baseline (a subscription made after others on the
 * same source is not told of what it saw when it was made). The source's cursor moves only
 * after the enqueue: a crash in between re-announces under the same event ids, which
 * dispatch drops. `cursor` is the source's, read by the caller (one Query per connection).
 */
export async function pollSharedSource(
  ctx: AppContext,
  connection: Connection,
  shared: SharedSource,
  cursor: SourceCursor | undefined,
): Promise<SourceOutcome> {
  // Without a shared cursor yet, every subscription's own baseline decides (read up front).
  const early = cursor ? undefined : await Promise.all(shared.subs.map((s) => readCursor(ctx.store, s.id)));
  const start: PagesCursor | undefined = cursor
    ? { etag: cursor.etag, since: cursor.since, seen: cursor.recent.map(([id]) => id) }
    : early && legacyStart(early);
  const page = await fetchNewestPages(ctx, connection, shared.source.path, start);
  if (page.kind === 'not_modified') return { result: 'not_modified', rate: page.rate };
  const now = new Date(ctx.clock.now()).toISOString();
  const known = page.items.flatMap((item) => {
    const who = itemIdentity(item);
    return who ? [{ item, ...who }] : [];
  });
  const fresh = cursor ? freshItems(cursor, known) : known;
  let events: ReturnType<typeof buildTriggerEvents> = [];
  if (fresh.length > 0) {
    const own = early ?? (await Promise.all(shared.subs.map((s) => readCursor(ctx.store, s.id))));
    const ordered = [...fresh].sort((a, b) => Date.parse(a.createdAt) - Date.parse(b.createdAt));
    for (const [i, sub] of shared.subs.entries()) {
      const baseline = own[i];
      if (!baseline) {
        await recordLostBaseline(ctx, sub.id, known, page.etag, now);
        continue;
      }
      events = events.concat(eventsFor(ctx, connection, shared.source, sub, baseline, ordered));
    }
  }
  await enqueueEvents(ctx, events);
  await writeSourceCursor(ctx.store, connection.id, shared.source.path, advanceCursor(cursor, known, page.etag, now));
  return { result: events.length, rate: page.rate };
}

/** No baseline (made before cursors existed, or lost): record one from this read, announce nothing. */
async function recordLostBaseline(
  ctx: AppContext,
  subscriptionId: string,
  known: ReadonlyArray<{ id: string; createdAt: string }>,
  etag: string | undefined,
  now: string,
): Promise<void> {
  const times = known.map((x) => Date.parse(x.createdAt)).filter((t) => !Number.isNaN(t));
  await writeCursor(ctx.store, subscriptionId, {
    etag,
    since: times.length ? new Date(Math.max(...times)).toISOString() : now,
    seen: known.slice(0, maxSeen).map((x) => x.id),
    updatedAt: now,
  });
}

function eventsFor(
  ctx: AppContext,
  connection: Connection,
  source: PollSource,
  sub: Subscription,
  baseline: PollCursor,
  ordered: ReadonlyArray<{ item: Record<string, unknown>; id: string; createdAt: string }>,
) {
  const since = Date.parse(baseline.since);
  const before = new Set(baseline.seen);
  const subscriptions = new Map([[sub.trigger, [sub]]]);
  return ordered
    .filter((x) => Date.parse(x.createdAt) >= since && !before.has(x.id))
    .flatMap(({ item, id, createdAt }) => {
      const mapped = source.map(item);
      if (!mapped) {
        // Left behind by the source's cursor all the same: an item the code host shapes unexpectedly is skipped, once, loudly.
        ctx.logger.warn('polled item does not have the expected shape; skipped', {
          subscriptionId: sub.id,
          trigger: sub.trigger,
          itemId: id,
        });
        return [];
      }
      return buildTriggerEvents({
        catalog: triggerCatalogOf(ctx.providers),
        connection,
        subscriptions,
        mapped: [mapped],
        deliveryId: `poll:${sub.id}:${id}`,
        occurredAt: createdAt,
      });
    });
}
