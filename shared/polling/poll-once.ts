import type { AppContext } from '../ports/app-context';
import { ConnectionRepo } from '../store/connection-repo';
import type { Connection, Subscription } from '../domain/model';
import { buildTriggerEvents, enqueueEvents } from '../dispatch/fan-out';
import { keys } from '../store/table-design';
import { SubscriptionRepo } from '../store/subscription-repo';
import { readCursor, writeCursor } from './poll-cursor';
import { fetchNewestPages } from './poll-pages';
import { pollWatchers } from './poll-watchers';
import { itemIdentity, polledTriggers, pollSourceFor } from './poll-source';

export interface PollReport {
  subscriptions: number;
  notModified: number;
  announced: number;
  failed: number;
}

/**
 * One round of polling (the schedule on AWS, `POLL_INTERVAL_SECONDS` locally): every
 * polled subscription, one conditional GET each, new items enqueued exactly as the
 * intake would. A failing subscription is logged and does not stop the others.
 */
export async function pollOnce(ctx: AppContext): Promise<PollReport> {
  const repo = new SubscriptionRepo(ctx.store);
  const connections = new ConnectionRepo(ctx.store);
  const report: PollReport = { subscriptions: 0, notModified: 0, announced: 0, failed: 0 };
  const cache = new Map<string, Connection | undefined>();
  for (const trigger of polledTriggers) {
    for (const sub of await repo.byRoute(keys.pollRoute(trigger))) {
      report.subscriptions++;
      try {
        if (!cache.has(sub.connectionId)) cache.set(sub.connectionId, await connections.get(sub.connectionId));
        const connection = cache.get(sub.connectionId);
        if (!connection || connection.status !== 'connected') continue;
        const outcome = await pollSubscription(ctx, connection, sub);
        if (outcome === 'not_modified') report.notModified++;
        else report.announced += outcome;
      } catch (e) {
        report.failed++;
        ctx.logger.warn('polling a subscription failed', { subscriptionId: sub.id, trigger: sub.trigger, error: e });
      }
    }
  }
  ctx.metrics.count('poll_announced', report.announced);
  if (report.failed > 0) ctx.metrics.count('poll_failed', report.failed);
  ctx.logger.info('poll round done', { ...report });
  return report;
}

/** Polls one subscription; returns how many events it enqueued, or `not_modified`. */
export async function pollSubscription(ctx: AppContext, connection: Connection, sub: Subscription): Promise<number | 'not_modified'> {
  if (sub.trigger === 'github.new_watcher') return pollWatchers(ctx, connection, sub);
  const source = pollSourceFor(sub);
  if (!source) return 0;
  const cursor = await readCursor(ctx.store, sub.id);
  const page = await fetchNewestPages(ctx, connection, source.path, cursor);
  if (page.kind === 'not_modified') return 'not_modified';
  const now = new Date(ctx.clock.now()).toISOString();
  const known = page.items.map((item) => ({ item, who: itemIdentity(item) })).filter((x) => x.who !== undefined);
  if (!cursor) {
    // No baseline (made before cursors existed, or lost): record one, announce nothing.
    const times = known.map((x) => Date.parse(x.who!.createdAt)).filter((t) => !Number.isNaN(t));
    await writeCursor(ctx.store, sub.id, { etag: page.etag, since: times.length ? new Date(Math.max(...times)).toISOString() : now, seen: known.map((x) => x.who!.id), updatedAt: now });
    return 0;
  }
  const since = Date.parse(cursor.since);
  const seen = new Set(cursor.seen);
  const fresh = known
    .filter((x) => !seen.has(x.who!.id) && Date.parse(x.who!.createdAt) >= since)
    .sort((a, b) => Date.parse(a.who!.createdAt) - Date.parse(b.who!.createdAt));
  const subscriptions = new Map([[sub.trigger, [sub]]]);
  const events = fresh.flatMap(({ item, who }) => {
    const mapped = source.map(item);
    if (!mapped) {
      // Marked seen below all the same: an item the code host shapes unexpectedly is skipped, once, loudly.
      ctx.logger.warn('polled item does not have the expected shape; skipped', { subscriptionId: sub.id, trigger: sub.trigger, itemId: who!.id });
      return [];
    }
    return buildTriggerEvents({ connection, subscriptions, mapped: [mapped], deliveryId: `poll:${sub.id}:${who!.id}`, occurredAt: who!.createdAt });
  });
  // Enqueue before moving the cursor: a crash in between re-announces with the same event ids, which dispatch drops.
  await enqueueEvents(ctx, events);
  await writeCursor(ctx.store, sub.id, { etag: page.etag, since: cursor.since, seen: [...cursor.seen, ...fresh.map((x) => x.who!.id)], updatedAt: now });
  return events.length;
}
