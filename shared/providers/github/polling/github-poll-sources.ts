import * as z from 'zod';
import { AppError } from '../../../domain/errors';
import type { Subscription } from '../../../domain/model';
import type { AppContext } from '../../../ports/app-context';
import type { PollSources, PollUnit } from '../../../polling/poll-unit';
import { SubscriptionRepo } from '../../../store/subscription-repo';
import { pollSharedSource } from './poll-shared-source';
import { polledTriggers, pollSourceFor, sourceKeyFor } from './poll-source';
import { pollTags, readTagWatches, watchSchema, type TagWatch } from './poll-tags';
import { pollWatchers } from './poll-watchers';
import { readConnectionCursors } from './source-cursor';

/** A subscription as a unit carries it: the fields polling reads are checked, the rest kept as they are. */
const subscriptionSchema = z
  .object({
    id: z.string(),
    connectionId: z.string(),
    trigger: z.string(),
    agentId: z.string(),
    filters: z.object({}).passthrough(),
    delivery: z.enum(['webhook', 'polling']),
    createdAt: z.string(),
  })
  .passthrough();

/** A unit of the code host: a list shared by subscriptions, a new_watcher subscription's pages, or a new_tag subscription's tag watch. */
const specSchema = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('source'), path: z.string(), subs: z.array(subscriptionSchema).min(1) }),
  z.object({ kind: z.literal('watchers'), sub: subscriptionSchema }),
  z.object({ kind: z.literal('tags'), watch: watchSchema }),
]);
type Spec =
  | { kind: 'source'; path: string; subs: Subscription[] }
  | { kind: 'watchers'; sub: Subscription }
  | { kind: 'tags'; watch: TagWatch };

const unit = (connectionId: string, key: string, subscriptions: number, spec: Spec): PollUnit => ({
  provider: 'github',
  connectionId,
  key,
  subscriptions,
  spec,
});

/** Groups the polled subscriptions by what they read: one unit per distinct (connection, list), one per new_watcher subscription. */
export function planRound(subs: readonly Subscription[]): PollUnit[] {
  const sources = new Map<string, { connectionId: string; path: string; subs: Subscription[] }>();
  const units: PollUnit[] = [];
  for (const sub of subs) {
    if (sub.trigger === 'github.new_watcher') {
      units.push(unit(sub.connectionId, `watchers#${sub.id}`, 1, { kind: 'watchers', sub }));
      continue;
    }
    const source = pollSourceFor(sub);
    if (!source) continue;
    const key = sourceKeyFor(sub.connectionId, source.path);
    const held = sources.get(key);
    if (held) held.subs.push(sub);
    else sources.set(key, { connectionId: sub.connectionId, path: source.path, subs: [sub] });
  }
  for (const [key, s] of sources) units.push(unit(s.connectionId, key, s.subs.length, { kind: 'source', path: s.path, subs: s.subs }));
  return units;
}

function tagUnit(watch: TagWatch): PollUnit {
  const sub = watch.subscription;
  return unit(sub.connectionId, `tags#${sub.id}`, 1, { kind: 'tags', watch });
}

/** The code host's polled triggers (gists, new repositories, watchers) and the tag watches of new_tag subscriptions. */
export const githubPollSources: PollSources = {
  async plan(ctx: AppContext) {
    const repo = new SubscriptionRepo(ctx.store);
    const subs: Subscription[] = [];
    for (const trigger of polledTriggers) subs.push(...(await repo.polled(trigger)));
    return [...planRound(subs), ...(await readTagWatches(ctx)).map(tagUnit)];
  },
  async poll(ctx, connection, pollUnit, batch) {
    const parsed = specSchema.safeParse(pollUnit.spec);
    if (!parsed.success) throw new AppError('invalid_input', `poll unit ${pollUnit.key}: ${parsed.error.issues[0]?.message}`);
    const spec = parsed.data;
    if (spec.kind === 'watchers') return { result: await pollWatchers(ctx, connection, spec.sub as Subscription) };
    if (spec.kind === 'tags') {
      const watch = { ...spec.watch, subscription: spec.watch.subscription as Subscription };
      return { result: await pollTags(ctx, connection, watch) };
    }
    const subs = spec.subs as Subscription[];
    const source = pollSourceFor(subs[0] as Subscription);
    if (!source) throw new AppError('invalid_input', `poll unit ${pollUnit.key}: no polled source for its subscriptions`);
    // One Query per connection and batch reads every cursor of the connection's lists.
    const cursors = await batch.once(`cursors#${connection.id}`, () => readConnectionCursors(ctx.store, connection.id));
    const shared = { key: pollUnit.key, connectionId: connection.id, source, subs };
    return pollSharedSource(ctx, connection, shared, cursors.get(source.path));
  },
};
