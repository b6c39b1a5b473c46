import * as z from 'zod';
import type { AppContext } from '../../../ports/app-context';
import type { Store } from '../../../ports';
import { mapPolledTag } from '../mapping/map-polled';
import type { Connection, Subscription } from '../../../domain/model';
import { repoPath } from '../webhooks/rest-call';
import { enqueueEvents } from '../../../dispatch/fan-out';
import { eventsOfUnseen } from './unseen-items';
import { readListing, shardOf } from '../../../store/sharded-listing';
import { keys, type ShardedListing } from '../../../store/table-design';
import { maxPollPages } from './poll-pages';
import { readUnorderedList } from './poll-unordered-list';

/**
 * new_tag beyond the webhook: the code host sends neither `create` nor `push` for tags pushed
 * more than three at once, so a repository's new_tag subscription also watches its tags list
 * (`GET /repos/{owner}/{repo}/tags`). The list has no time and no order by creation, so each
 * page is read conditionally with its own ETag (an unchanged page answers 304, free of rate
 * limit) and a tag is new when its name was not listed before. Those listed when the
 * subscription was made are its baseline. A tag announced by a `create` delivery has the same
 * event id (keyed by name, map-polled.ts), so dispatch lets one of the two through.
 *
 * The watch is a row of its own (the subscription's poll cursor, `CURSOR#<id>`) in a gsi1
 * shard of `tagWatches`, by its connection: the subscription itself stays routed to its webhook. The row
 * carries the subscription (subscriptions are never changed after they are made) and is
 * deleted before it (delete-subscription.ts), so a row never outlives its subscription.
 */

/** The tag watches, sharded by their connection: a round reads every shard. */
export const tagWatches: ShardedListing = { index: 'gsi1', partition: `${keys.pollRoute('github.new_tag')}#watch` };

const maxTagsSeen = maxPollPages * 100 * 2;

export const watchSchema = z.object({
  subscription: z.object({
    id: z.string(),
    connectionId: z.string(),
    trigger: z.literal('github.new_tag'),
    agentId: z.string(),
    repository: z.string(),
    filters: z.object({}).passthrough(),
    delivery: z.enum(['webhook', 'polling']),
    endpointId: z.string().optional(),
    installationId: z.number().int().optional(),
    createdAt: z.string(),
  }),
  etags: z.array(z.string()),
  seen: z.array(z.string()),
  updatedAt: z.string(),
});

export interface TagWatch {
  subscription: Subscription;
  /** ETag of each page read, by page number - 1. */
  etags: string[];
  /** Names of every tag listed so far (bounded). */
  seen: string[];
  updatedAt: string;
}

/** Whether a subscription gets a tag watch: new_tag on one repository (an organization's repositories are not polled). */
export function watchesTags(sub: Subscription): boolean {
  return sub.trigger === 'github.new_tag' && sub.repository !== undefined;
}

const tagsPath = (repository: string) => `${repoPath(repository)}/tags?per_page=100`;

const nameOf = (tag: Record<string, unknown>) => (typeof tag.name === 'string' && tag.name !== '' ? tag.name : undefined);

/** A tag watch as its row. */
export function tagWatchRow(watch: TagWatch) {
  return {
    ...keys.pollCursor(watch.subscription.id),
    gsi1pk: shardOf(tagWatches, watch.subscription.connectionId),
    gsi1sk: watch.subscription.id,
    subscription: watch.subscription,
    etags: watch.etags,
    seen: watch.seen.slice(-maxTagsSeen),
    updatedAt: watch.updatedAt,
  };
}

async function writeWatch(store: Store, watch: TagWatch): Promise<void> {
  await store.put(tagWatchRow(watch));
}

/** At subscription time: the tags listed now are never announced. */
export async function recordTagWatch(ctx: AppContext, connection: Connection, sub: Subscription): Promise<void> {
  if (!watchesTags(sub) || sub.repository === undefined) return;
  const read = await readUnorderedList(ctx, connection, tagsPath(sub.repository), []);
  const seen = read.items.map(nameOf).filter((x) => x !== undefined);
  await writeWatch(ctx.store, { subscription: sub, etags: read.etags, seen, updatedAt: new Date(ctx.clock.now()).toISOString() });
}

/** Every tag watch (every shard, and the partition from before the shards); rows that do not read as one are skipped. */
export async function readTagWatches(ctx: Pick<AppContext, 'store' | 'logger'>): Promise<TagWatch[]> {
  const out: TagWatch[] = [];
  for (const item of await readListing<{ pk: string; sk: string } & Record<string, unknown>>(ctx.store, tagWatches)) {
    const parsed = watchSchema.safeParse(item);
    if (parsed.success) out.push({ ...parsed.data, subscription: parsed.data.subscription as Subscription });
    else ctx.logger.warn('tag watch row does not read as one; skipped', { pk: item.pk });
  }
  return out;
}

/** One round for one tag watch: events enqueued, or `not_modified` when every page was unchanged. */
export async function pollTags(ctx: AppContext, connection: Connection, watch: TagWatch): Promise<number | 'not_modified'> {
  const sub = watch.subscription;
  const repository = sub.repository ?? '';
  const read = await readUnorderedList(ctx, connection, tagsPath(repository), watch.etags);
  if (read.items.length === 0 && read.etags.every((e, i) => e === watch.etags[i])) return 'not_modified';
  const seen = new Set(watch.seen);
  const events = eventsOfUnseen(ctx, connection, sub, read.items, seen, { kind: 'tag', keyOf: nameOf, map: mapPolledTag });
  // Enqueue before moving the watch: a crash in between re-announces with the same event ids, which dispatch drops.
  await enqueueEvents(ctx, events);
  await writeWatch(ctx.store, {
    subscription: sub,
    etags: read.etags,
    seen: [...seen],
    updatedAt: new Date(ctx.clock.now()).toISOString(),
  });
  return events.length;
}
