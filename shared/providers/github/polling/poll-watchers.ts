import type { AppContext } from '../../../ports/app-context';
import { mapPolledWatcher } from '../mapping/map-polled';
import type { Connection, Subscription } from '../../../domain/model';
import { repoPath } from '../webhooks/rest-call';
import { enqueueEvents } from '../../../dispatch/fan-out';
import { eventsOfUnseen } from './unseen-items';
import { keys } from '../../../store/table-design';
import { maxPollPages } from './poll-pages';
import { readUnorderedList } from './poll-unordered-list';

/**
 * new_watcher: the code host has no webhook for watching (its `watch` event is sent for
 * stars), so the repository's subscribers are polled. The list has no time of subscription
 * and no documented order, so each page is read conditionally with its own ETag (an
 * unchanged page answers 304, free of rate limit), and a watcher is new when its id was not
 * seen before. Those watching when the subscription was made are the baseline. Up to
 * `maxPollPages` pages (1,000 watchers) are read.
 */

interface WatcherCursor {
  /** ETag of each page read, by page number - 1. */
  etags: string[];
  /** Ids of every watcher seen (bounded). */
  seen: string[];
  updatedAt: string;
}

const subscribersPath = (repository: string) => `${repoPath(repository)}/subscribers?per_page=100`;

const maxWatchersSeen = maxPollPages * 100 * 2;

async function readWatcherCursor(ctx: AppContext, subscriptionId: string): Promise<WatcherCursor | undefined> {
  const item = await ctx.store.get<{ pk: string; sk: string } & Partial<WatcherCursor>>(keys.pollCursor(subscriptionId));
  if (!item || !Array.isArray(item.etags)) return undefined;
  return { etags: item.etags, seen: item.seen ?? [], updatedAt: item.updatedAt ?? '' };
}

async function writeWatcherCursor(ctx: AppContext, subscriptionId: string, cursor: WatcherCursor): Promise<void> {
  await ctx.store.put({ ...keys.pollCursor(subscriptionId), ...cursor, seen: cursor.seen.slice(-maxWatchersSeen) });
}

const idOf = (user: Record<string, unknown>) => (typeof user.id === 'number' || typeof user.id === 'string' ? String(user.id) : undefined);

/** At subscription time: who watches now is never announced. */
export async function recordWatcherBaseline(ctx: AppContext, connection: Connection, sub: Subscription): Promise<void> {
  if (!sub.repository) return;
  const read = await readUnorderedList(ctx, connection, subscribersPath(sub.repository), []);
  const seen = read.items.map(idOf).filter((x) => x !== undefined);
  await writeWatcherCursor(ctx, sub.id, { etags: read.etags, seen, updatedAt: new Date(ctx.clock.now()).toISOString() });
}

/** One round for one new_watcher subscription: events enqueued, or `not_modified` when every page was unchanged. */
export async function pollWatchers(ctx: AppContext, connection: Connection, sub: Subscription): Promise<number | 'not_modified'> {
  const { repository } = sub;
  if (!repository) return 0;
  const cursor = await readWatcherCursor(ctx, sub.id);
  if (!cursor) {
    await recordWatcherBaseline(ctx, connection, sub);
    return 0;
  }
  const read = await readUnorderedList(ctx, connection, subscribersPath(repository), cursor.etags);
  if (read.items.length === 0 && read.etags.every((e, i) => e === cursor.etags[i])) return 'not_modified';
  const seen = new Set(cursor.seen);
  const events = eventsOfUnseen(ctx, connection, sub, read.items, seen, { kind: 'watcher', keyOf: idOf, map: mapPolledWatcher });
  // Enqueue before moving the cursor: a crash in between re-announces with the same event ids, which dispatch drops.
  await enqueueEvents(ctx, events);
  await writeWatcherCursor(ctx, sub.id, { etags: read.etags, seen: [...seen], updatedAt: new Date(ctx.clock.now()).toISOString() });
  return events.length;
}
