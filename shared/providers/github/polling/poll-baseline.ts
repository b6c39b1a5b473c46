import type { AppContext } from '../../../ports/app-context';
import type { Connection, Subscription } from '../../../domain/model';
import { fetchListPage } from './poll-fetch';
import { SubscriptionRepo } from '../../../store/subscription-repo';
import { writeCursor } from './poll-cursor';
import { itemIdentity, pollSourceFor } from './poll-source';
import { advanceCursor, readSourceCursor, writeSourceCursor } from './source-cursor';
import { recordWatcherBaseline } from './poll-watchers';

export { recordTagWatch } from './poll-tags';

/**
 * Records what exists now for a polled subscription, so the poller only ever announces
 * what is created after: the newest creation time seen (the code host's clock, or ours
 * when there is nothing yet) and the ids at hand, with the ETag for the next conditional GET.
 * The first subscription on a source also starts the source's shared cursor from the same
 * answer; a later one leaves it alone (moving it would make the earlier ones miss items
 * created since their last round) and is kept from older items by its own baseline.
 */
export async function recordBaseline(ctx: AppContext, connection: Connection, sub: Subscription): Promise<void> {
  if (sub.trigger === 'github.new_watcher') return recordWatcherBaseline(ctx, connection, sub);
  const source = pollSourceFor(sub);
  if (!source) return;
  const page = await fetchListPage(ctx, connection, source.path);
  const items = page.kind === 'items' ? page.items : [];
  const ids = items.map(itemIdentity).filter((x) => x !== undefined);
  const now = new Date(ctx.clock.now()).toISOString();
  const times = ids.map((x) => Date.parse(x.createdAt)).filter((t) => !Number.isNaN(t));
  const newest = times.length > 0 ? new Date(Math.max(...times)).toISOString() : undefined;
  await writeCursor(ctx.store, sub.id, {
    etag: page.kind === 'items' ? page.etag : undefined,
    since: newest ?? now,
    seen: ids.map((x) => x.id),
    updatedAt: now,
  });
  // Only for a source nobody polls yet: subscriptions from before shared cursors have none, and
  // starting one now would hide from them what was created since their last round.
  if (page.kind !== 'items' || (await readSourceCursor(ctx.store, connection.id, source.path))) return;
  const others = (await new SubscriptionRepo(ctx.store).list(connection.id)).filter(
    (s) => s.id !== sub.id && s.delivery === 'polling' && pollSourceFor(s)?.path === source.path,
  );
  if (others.length === 0) await writeSourceCursor(ctx.store, connection.id, source.path, advanceCursor(undefined, ids, page.etag, now));
}
