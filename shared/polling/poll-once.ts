import type { AppContext } from '../ports/app-context';
import { ConnectionRepo } from '../store/connection-repo';
import { AppError } from '../domain/errors';
import type { Connection } from '../domain/model';
import { runFairPool } from './fair-pool';
import { roundTokens } from './round-tokens';
import { batchMemo, type PollUnit, type RateBudget } from './poll-unit';

export interface PollReport {
  subscriptions: number;
  /** Units read this round (a distinct (connection, list), a watcher or tag watch): what costs requests. */
  sources: number;
  notModified: number;
  announced: number;
  /** Sources whose read failed (logged; the next round, or the work item's next receive, tries again). */
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

/** Every provider's units of this round. */
export async function planUnits(ctx: AppContext): Promise<PollUnit[]> {
  const lists = await Promise.all(Object.values(ctx.providers).map((p) => p.polling?.sources?.plan(ctx) ?? []));
  return lists.flat();
}

/** A report of nothing read yet over `units`. */
export function emptyReport(units: readonly PollUnit[]): PollReport {
  const subscriptions = units.reduce((n, u) => n + u.subscriptions, 0);
  return { subscriptions, sources: units.length, notModified: 0, announced: 0, failed: 0, deferred: 0 };
}

/** Adds `more` into `report`. */
export function addReport(report: PollReport, more: PollReport): void {
  for (const k of Object.keys(more) as (keyof PollReport)[]) report[k] += more[k];
}

/** What a run of units came to: the counts, and the keys of the units whose read failed (not a rate limit). */
export interface UnitsRun {
  report: PollReport;
  failedKeys: Set<string>;
}

/**
 * Reads `units` with bounded concurrency, connections taking turns and each capped, so no
 * token hogs the run or bursts past the code host's secondary limits; a connection whose
 * hourly budget runs low has its other units left for a later round (`deferred`). A
 * connection's token is read once a run, not once a unit. A failing unit is logged and
 * does not stop the others.
 */
export async function pollUnits(ctx: AppContext, units: readonly PollUnit[], options: PollOptions = {}): Promise<UnitsRun> {
  const o = { ...pollDefaults, ...options };
  const run: UnitsRun = { report: emptyReport(units), failedKeys: new Set() };
  const { report } = run;
  const batch = batchMemo();
  const repo = new ConnectionRepo(ctx.store);
  const connectionOf = (id: string) => batch.once<Connection | undefined>(`connection#${id}`, () => repo.get(id));
  const runCtx: AppContext = { ...ctx, tokens: roundTokens(ctx.tokens) };
  const lowBudget = new Set<string>();
  const defer = (connectionId: string, rate: RateBudget | undefined) => {
    if (lowBudget.has(connectionId)) return;
    lowBudget.add(connectionId);
    // What the agents' own calls with this token need is kept for them; polling catches up after the reset.
    ctx.logger.warn("rate budget low: the connection's other sources wait for a later round", {
      connectionId,
      remaining: rate?.remaining,
      resetAt: rate?.resetAt,
    });
    pool.skipGroup(connectionId);
  };
  const pool = runFairPool(
    units.map((u) => ({ group: u.connectionId, task: u })),
    { concurrency: o.concurrency, perGroup: o.perConnection },
    async (unit) => {
      try {
        const connection = await connectionOf(unit.connectionId);
        if (connection?.status !== 'connected') return;
        const sources = ctx.providers[unit.provider].polling?.sources;
        if (!sources) throw new AppError('invalid_input', `provider ${unit.provider} polls no sources`);
        const { result, rate } = await sources.poll(runCtx, connection, unit, batch);
        if (result === 'not_modified') report.notModified++;
        else report.announced += result;
        if (rate && rate.remaining < o.rateReserve) defer(unit.connectionId, rate);
      } catch (e) {
        report.failed++;
        if (e instanceof AppError && e.code === 'rate_limited') defer(unit.connectionId, undefined);
        else run.failedKeys.add(unit.key);
        ctx.logger.warn('polling a source failed', { connectionId: unit.connectionId, source: unit.key, error: e });
      }
    },
    () => report.deferred++,
  );
  await pool.done;
  return run;
}

/** Each provider's once-a-round check for what its webhooks missed (the collection service's). */
export async function recoverMissed(ctx: AppContext, report: PollReport): Promise<void> {
  for (const provider of Object.values(ctx.providers)) {
    if (!provider.polling?.recover) continue;
    report.announced += await provider.polling.recover(ctx).catch((e: unknown) => {
      report.failed++;
      ctx.logger.warn('recovery check failed', { provider: provider.id, error: e });
      return 0;
    });
  }
}

/** The round's counts as metrics and one log line. */
export function reportRound(ctx: AppContext, report: PollReport, message: string): void {
  ctx.metrics.count('poll_announced', report.announced);
  ctx.metrics.count('poll_sources', report.sources);
  if (report.failed > 0) ctx.metrics.count('poll_failed', report.failed);
  if (report.deferred > 0) ctx.metrics.count('poll_deferred', report.deferred);
  ctx.logger.info(message, { ...report });
}

/**
 * One whole round of polling in one process: every provider's units (each distinct
 * (connection, list) read once, conditionally, and what is new fanned out to every
 * subscription on it, exactly as the intake would enqueue it), then the providers'
 * recovery checks. See docs/polling.md for the cost model.
 */
export async function pollOnce(ctx: AppContext, options: PollOptions = {}): Promise<PollReport> {
  const { report } = await pollUnits(ctx, await planUnits(ctx), options);
  await recoverMissed(ctx, report);
  reportRound(ctx, report, 'poll round done');
  return report;
}
