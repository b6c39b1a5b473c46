import type { AppContext } from '../ports/app-context';
import { ConnectionRepo } from '../store/connection-repo';
import { AppError } from '../domain/errors';
import type { Connection, Subscription } from '../domain/model';
import { keys } from '../store/table-design';
import { SubscriptionRepo } from '../store/subscription-repo';
import { runFairPool } from './fair-pool';
import { roundTokens } from './round-tokens';
import { readConnectionCursors, type SourceCursor } from './source-cursor';
import type { RateBudget } from './poll-fetch';
import { pollSharedSource, type SharedSource } from './poll-shared-source';
import { pollWatchers } from './poll-watchers';
import { pollTags, readTagWatches, type TagWatch } from './poll-tags';
import { polledTriggers, pollSourceFor, sourceKeyFor } from './poll-source';
import { recoverMissedSnareDeliveries } from './poll-contentsnare';

export interface PollReport {
  subscriptions: number;
  /** Distinct (connection, list) read this round: what costs requests. */
  sources: number;
  notModified: number;
  announced: number;
  /** Sources whose read failed (logged; the next round tries again). */
  failed: number;
  /** Sources left for a later round because their connection's rate budget ran low. */
  deferred: number;
}

export interface PollOptions {
  /** Reads in flight at once, across connections. */
  concurrency?: number;
  /** Reads in flight at once for one connection (one token). */
  perConnection?: number;
  /** Below this many requests left in a token's hour, its other sources wait for a later round. */
  rateReserve?: number;
}

export const pollDefaults: Required<PollOptions> = { concurrency: 32, perConnection: 4, rateReserve: 500 };

/** One unit of a round: a shared list, a new_watcher subscription (its own pages and cursor), or a new_tag subscription's tag watch. */
type Unit =
  | { kind: 'source'; connectionId: string; shared: SharedSource }
  | { kind: 'watchers'; connectionId: string; sub: Subscription }
  | { kind: 'tags'; connectionId: string; watch: TagWatch };

/** Groups the polled subscriptions by what they read: one unit per distinct (connection, list). */
export function planRound(subs: readonly Subscription[]): Unit[] {
  const sources = new Map<string, Unit & { kind: 'source' }>();
  const units: Unit[] = [];
  for (const sub of subs) {
    if (sub.trigger === 'github.new_watcher') {
      units.push({ kind: 'watchers', connectionId: sub.connectionId, sub });
      continue;
    }
    const source = pollSourceFor(sub);
    if (!source) continue;
    const key = sourceKeyFor(sub.connectionId, source.path);
    const unit = sources.get(key);
    if (unit) unit.shared.subs.push(sub);
    else {
      const made = {
        kind: 'source' as const,
        connectionId: sub.connectionId,
        shared: { key, connectionId: sub.connectionId, source, subs: [sub] },
      };
      sources.set(key, made);
      units.push(made);
    }
  }
  return units;
}

/**
 * One round of polling (the schedule on AWS, `POLL_INTERVAL_SECONDS` locally). Each
 * distinct (connection, list) is read once, conditionally, and what is new is fanned out
 * to every subscription on it, exactly as the intake would enqueue it. Reads run with
 * bounded concurrency, connections taking turns and each capped, so a round of thousands
 * of sources ends within the interval and no token hogs it; a connection whose hourly
 * budget runs low is left for a later round (`deferred`). A failing source is logged and
 * does not stop the others. See docs/polling.md for the cost model.
 */
export async function pollOnce(ctx: AppContext, options: PollOptions = {}): Promise<PollReport> {
  const o = { ...pollDefaults, ...options };
  const repo = new SubscriptionRepo(ctx.store);
  const connections = new ConnectionRepo(ctx.store);
  const subs: Subscription[] = [];
  for (const trigger of polledTriggers) subs.push(...(await repo.byRoute(keys.pollRoute(trigger))));
  const watches = await readTagWatches(ctx);
  const units: Unit[] = [
    ...planRound(subs),
    ...watches.map((watch) => ({ kind: 'tags' as const, connectionId: watch.subscription.connectionId, watch })),
  ];
  const report: PollReport = {
    subscriptions: subs.length + watches.length,
    sources: units.length,
    notModified: 0,
    announced: 0,
    failed: 0,
    deferred: 0,
  };
  const cache = new Map<string, Promise<Connection | undefined>>();
  const connectionOf = (id: string) => {
    let read = cache.get(id);
    if (!read) {
      read = connections.get(id);
      cache.set(id, read);
    }
    return read;
  };
  const cursors = new Map<string, Promise<Map<string, SourceCursor>>>();
  const cursorsOf = (id: string) => {
    let read = cursors.get(id);
    if (!read) {
      read = readConnectionCursors(ctx.store, id);
      cursors.set(id, read);
    }
    return read;
  };
  // A connection's token is read once a round, not once a source (a Secrets Manager call on AWS).
  const roundCtx: AppContext = { ...ctx, tokens: roundTokens(ctx.tokens) };
  const lowBudget = new Set<string>();
  const pool = runFairPool(
    units.map((u) => ({ group: u.connectionId, task: u })),
    { concurrency: o.concurrency, perGroup: o.perConnection },
    async (unit) => {
      try {
        const connection = await connectionOf(unit.connectionId);
        if (connection?.status !== 'connected') return;
        let result: number | 'not_modified';
        let rate: RateBudget | undefined;
        if (unit.kind === 'watchers') result = await pollWatchers(roundCtx, connection, unit.sub);
        else if (unit.kind === 'tags') result = await pollTags(roundCtx, connection, unit.watch);
        else
          ({ result, rate } = await pollSharedSource(
            roundCtx,
            connection,
            unit.shared,
            (await cursorsOf(unit.connectionId)).get(unit.shared.source.path),
          ));
        if (result === 'not_modified') report.notModified++;
        else report.announced += result;
        if (rate && rate.remaining < o.rateReserve) defer(unit.connectionId, rate);
      } catch (e) {
        report.failed++;
        if (e instanceof AppError && e.code === 'rate_limited') defer(unit.connectionId, undefined);
        ctx.logger.warn('polling a source failed', {
          connectionId: unit.connectionId,
          source: unit.kind === 'source' ? unit.shared.key : unit.kind === 'tags' ? unit.watch.subscription.id : unit.sub.id,
          error: e,
        });
      }
    },
    () => report.deferred++,
  );
  function defer(connectionId: string, rate: RateBudget | undefined) {
    if (lowBudget.has(connectionId)) return;
    lowBudget.add(connectionId);
    // What the agents' own calls with this token need is kept for them; polling catches up after the reset.
    ctx.logger.warn("rate budget low: the connection's other sources wait for a later round", {
      connectionId,
      remaining: rate?.remaining,
      resetAt: rate?.resetAt,
    });
    pool.skipGroup(connectionId);
  }
  await pool.done;
  // The collection service's webhooks are unsigned and never retried: what they missed is found here (poll-contentsnare.ts).
  report.announced += await recoverMissedSnareDeliveries(ctx).catch((e: unknown) => {
    report.failed++;
    ctx.logger.warn('collection-service recovery check failed', { error: e });
    return 0;
  });
  ctx.metrics.count('poll_announced', report.announced);
  ctx.metrics.count('poll_sources', report.sources);
  if (report.failed > 0) ctx.metrics.count('poll_failed', report.failed);
  if (report.deferred > 0) ctx.metrics.count('poll_deferred', report.deferred);
  ctx.logger.info('poll round done', { ...report });
  return report;
}
