import type { AppContext } from '../ports/app-context';
import { AppError } from '../domain/errors';
import { ConnectionRepo } from '../store/connection-repo';
import type { Connection, Endpoint } from '../domain/model';
import { keys } from '../store/table-design';
import { onceState } from '../store/once-claim';
import { EndpointRepo } from '../store/endpoint-repo';
import { CursorRefused, type DeliveryPage, type HookDelivery, type RateBudget, type SweptHook } from './swept-hook';
import { loadSweepState, saveSweepState, type PendingDelivery, type SweepState, type Walk } from './sweep-state';

/** What a provider adds to the sweep. */
export interface ProviderSweep {
  /**
   * Hooks that carry many tenants' deliveries (the GitHub App's webhook), walked before the
   * endpoints' within `appPagesPerRound`; none when the provider has none configured here.
   */
  sharedHooks(ctx: AppContext): Promise<SweptHook[]>;
  /** The hook of one of its connection's endpoints, bound to the connection's credential. */
  endpointHook?(ctx: AppContext, connection: Connection, endpoint: Endpoint): Promise<SweptHook>;
}

declare module '../ports/provider-contract' {
  interface ProviderContract {
    sweep?: ProviderSweep;
  }
}

export interface SweepReport {
  endpoints: number;
  /** Deliveries (by guid) that no attempt of ours accepted, and that were asked for again. */
  found: number;
  redelivered: number;
  failed: number;
  /** Delivery pages read. */
  pages: number;
  /** Hooks whose walk stopped early because their connection's rate budget ran low. */
  deferred: number;
  /** Hooks whose walk has not reached the window's start yet (it resumes next round). */
  walking: number;
}

export interface SweepOptions {
  /** Pages (of 100 deliveries) read per hook and round; an unfinished walk resumes next round. */
  pagesPerHook?: number;
  /**
   * Pages read of the GitHub App's webhook per round: it carries every installation's
   * deliveries, so a burst there is many hooks' worth. It is walked first, within this bound.
   */
  appPagesPerRound?: number;
  /** Requests left to the token below which the sweep stops: what the agents' own calls need is kept for them. */
  rateReserve?: number;
  /** How far each walk reaches past the start of the last one: deliveries can show in the list minutes late. */
  overlapMs?: number;
  /** How long a delivery a relay answered 2xx is given to arrive before its missing claim counts. */
  relayGraceMs?: number;
  /** No page is started after this long in the round (the function's timeout is 2 minutes). */
  roundMs?: number;
}

export const sweepDefaults: Required<SweepOptions> = {
  pagesPerHook: 20,
  appPagesPerRound: 100,
  rateReserve: 500,
  overlapMs: 5 * 60_000,
  relayGraceMs: 60_000,
  roundMs: 90_000,
};

/** The code host keeps deliveries a few days; older ones cannot be redelivered anyway. */
const maxAgeMs = 3 * 24 * 3600 * 1000;
/**
 * How many redeliveries of one guid the sweep asks for: a redelivery that fails again (the
 * intake died during it too) is asked for again, but a delivery that always fails (a body
 * over the entry point's limit) is not asked for forever.
 */
export const maxRedeliveriesPerGuid = 3;
/**
 * Claim rows read, and redeliveries asked for, at once: well below the code host's 100
 * concurrent requests, and a rate-limit answer stops the rest (RateGauge).
 */
const claimReads = 10;

function ok(status: number | undefined): boolean {
  return status !== undefined && status >= 200 && status < 300;
}

/** What a connection has left this round, shared by its hooks. */
class RateGauge {
  private low = false;
  constructor(private readonly reserve: number) {}
  note(rate: RateBudget | undefined): void {
    if (rate && rate.remaining < this.reserve) this.low = true;
  }
  spent(): void {
    this.low = true;
  }
  get exhausted(): boolean {
    return this.low;
  }
}

/** One round of the sweep, or one worker's batch of its work items: the counts, the clock it started on, each token's budget. */
export interface Round {
  ctx: AppContext;
  options: Required<SweepOptions>;
  report: SweepReport;
  startedAt: number;
  gauges: Map<string, RateGauge>;
}

interface HookRun {
  round: Round;
  hook: SweptHook;
  gauge: RateGauge;
  state: SweepState;
  /** Deliveries a relay answered 2xx prove nothing: a hook registered at one has its successes checked too. */
  relayed: boolean;
  now: number;
  /** GUIDs judged this round (the newest attempt of a GUID is the one judged). */
  judged: Set<string>;
  /** Pages this hook may read this round. */
  pageBudget: number;
}

/**
 * What our mark of the delivery id says: processed (`done`), being processed (a live
 * lease: look again next round), or nothing (never seen, or an attempt that died).
 */
function markOf(ctx: AppContext, routeId: string, guid: string) {
  return onceState(ctx.store, keys.deliveryClaim(routeId, guid));
}

function atOf(d: HookDelivery, now: number): number {
  const at = d.delivered_at ? Date.parse(d.delivered_at) : Number.NaN;
  return Number.isFinite(at) ? at : now;
}

/**
 * The deliveries of one page that may need a redelivery: per GUID the newest attempt seen
 * this round, unless the code host's answer settles it (a 2xx on a hook that is not at a
 * relay), the sweep already asked for it or a later attempt, or it was asked for enough.
 */
function candidates(run: HookRun, page: HookDelivery[], since: number): { found: PendingDelivery[]; reachedEnd: boolean } {
  const found: PendingDelivery[] = [];
  let reachedEnd = false;
  for (const d of page) {
    const at = atOf(d, run.now);
    if (at < since) {
      reachedEnd = true;
      continue;
    }
    if (ok(d.status_code)) {
      if (!run.relayed) {
        run.judged.add(d.guid);
        continue;
      }
      // Relayed a moment ago: its replay may still be on its way. A later walk's overlap sees it again.
      if (run.now - at < run.round.options.relayGraceMs) {
        run.judged.add(d.guid);
        continue;
      }
    }
    if (run.judged.has(d.guid)) continue;
    run.judged.add(d.guid);
    // The App's own delivery without an installation: the intake takes none of those, a redelivery would be refused again.
    if (run.hook.routeId(d) === undefined) continue;
    if (run.state.asked.covers(d.guid, d.id) || run.state.asked.count(d.guid) >= maxRedeliveriesPerGuid) continue;
    found.push({
      guid: d.guid,
      id: d.id,
      at,
      ...(d.event !== undefined ? { event: d.event } : {}),
      ...(typeof d.installation_id === 'number' ? { installationId: d.installation_id } : {}),
    });
  }
  return { found, reachedEnd };
}

/**
 * Asks for a redelivery of each delivery no attempt of ours accepted. One whose attempt is
 * running, or that the budget leaves unasked, is kept in `pending` for the next round.
 */
async function settle(run: HookRun, list: PendingDelivery[]): Promise<void> {
  const { ctx } = run.round;
  for (let i = 0; i < list.length; i += claimReads) {
    const batch = list.slice(i, i + claimReads);
    const marks = await Promise.all(
      batch.map((d) => {
        const routeId = run.hook.routeId({ id: d.id, guid: d.guid, installation_id: d.installationId ?? null });
        return routeId === undefined ? Promise.resolve('done' as const) : markOf(ctx, routeId, d.guid);
      }),
    );
    await Promise.all(batch.map((d, j) => (marks[j] === 'done' ? undefined : ask(run, d, marks[j] === 'in_progress'))));
  }
}

/** Asks for one redelivery, or keeps the delivery for next round (an attempt holds it, or the budget is spent). */
async function ask(run: HookRun, d: PendingDelivery, held: boolean): Promise<void> {
  const { ctx, report } = run.round;
  if (held || run.gauge.exhausted) {
    run.state.pending.push(d);
    return;
  }
  report.found++;
  try {
    run.gauge.note(await run.hook.redeliver(d.id));
    run.state.asked.add(d.guid, d.id);
    report.redelivered++;
    ctx.logger.info('redelivery requested', { endpointId: run.hook.id, deliveryId: d.guid, event: d.event });
  } catch (e) {
    if (e instanceof AppError && e.code === 'rate_limited') {
      run.gauge.spent();
      run.state.pending.push(d);
      return;
    }
    report.failed++;
    ctx.logger.warn('redelivery request failed', { endpointId: run.hook.id, deliveryId: d.guid, error: e });
  }
}

/**
 * Walks the hook's deliveries from the newest (or where the last round stopped) back to
 * `walk.stopBefore`. A cursor walk cannot read pages side by side, so the next page is read
 * while this one's deliveries are settled; a page read ahead and not reached is read again
 * next round, from the walk's cursor.
 */
async function walkPages(run: HookRun, walk: Walk): Promise<'done' | 'unfinished'> {
  const { ctx, options, report } = run.round;
  const since = Math.max(walk.stopBefore, run.now - maxAgeMs);
  const read = (cursor: string | undefined) => run.hook.page(cursor);
  let ahead: Promise<DeliveryPage> | undefined;
  for (let pages = 0; ; ) {
    if (pages >= run.pageBudget || ctx.clock.now() - run.round.startedAt > options.roundMs) return 'unfinished';
    if (run.gauge.exhausted) {
      report.deferred++;
      return 'unfinished';
    }
    let page: DeliveryPage;
    try {
      page = await (ahead ?? read(walk.cursor));
    } catch (e) {
      ahead = undefined;
      if (e instanceof CursorRefused && walk.cursor !== undefined) {
        ctx.logger.warn('the provider refused the sweep cursor; walking again from the newest delivery', { endpointId: run.hook.id });
        walk.cursor = undefined;
        pages++;
        continue;
      }
      if (e instanceof AppError && e.code === 'rate_limited') {
        run.gauge.spent();
        continue;
      }
      throw e;
    }
    ahead = undefined;
    pages++;
    report.pages++;
    run.gauge.note(page.rate);
    const { found, reachedEnd } = candidates(run, page.deliveries, since);
    const next = reachedEnd ? undefined : page.next;
    if (next !== undefined && pages < run.pageBudget && !run.gauge.exhausted) {
      ahead = read(next);
      // Awaited on the next turn, or dropped when the walk stops first.
      ahead.catch(() => undefined);
    }
    await settle(run, found);
    if (next === undefined) return 'done';
    walk.cursor = next;
  }
}

/** A round (or a worker's batch) started now with `opts` over the defaults. */
export function newRound(ctx: AppContext, opts: SweepOptions = {}): Round {
  const report: SweepReport = { endpoints: 0, found: 0, redelivered: 0, failed: 0, pages: 0, deferred: 0, walking: 0 };
  return { ctx, options: { ...sweepDefaults, ...opts }, report, startedAt: ctx.clock.now(), gauges: new Map() };
}

/**
 * How a hook's walk ended this time: it reached the window's start, it stopped at its page or
 * time budget (it resumes at its cursor), or its token's budget ran low.
 */
export type WalkOutcome = 'done' | 'unfinished' | 'deferred';

/** Sweeps one of our hooks with its connection's token; `skipped` when it is not ours to read now (no hook, connection not connected). */
export async function sweepEndpoint(round: Round, endpoint: Endpoint): Promise<WalkOutcome | 'skipped'> {
  const { ctx } = round;
  const connection = await new ConnectionRepo(ctx.store).get(endpoint.connectionId);
  if (connection?.status !== 'connected' || endpoint.hookId === undefined) return 'skipped';
  const hook = await ctx.providers[connection.provider].sweep?.endpointHook?.(ctx, connection, endpoint);
  if (!hook) return 'skipped';
  return sweepHook(round, hook, connection.id, round.options.pagesPerHook);
}

/** The rate budget of one token (a connection's, or the App's JWT), shared by the hooks it reads this round. */
function gaugeOf(round: Round, budget: string): RateGauge {
  let gauge = round.gauges.get(budget);
  if (!gauge) {
    gauge = new RateGauge(round.options.rateReserve);
    round.gauges.set(budget, gauge);
  }
  return gauge;
}

/** Sweeps one hook within `pageBudget` pages and the round's time, from its sweep-state row, which it keeps (the walk's cursor too). */
export async function sweepHook(round: Round, hook: SweptHook, budget: string, pageBudget: number): Promise<WalkOutcome> {
  const { ctx, options } = round;
  const gauge = gaugeOf(round, budget);
  const now = ctx.clock.now();
  const state = await loadSweepState(ctx.store, hook.id);
  const relayed = ctx.config.webhookProxyUrl !== undefined;
  const run: HookRun = { round, hook, gauge, state, relayed, now, judged: new Set(), pageBudget };

  // Those left from the last round first: an attempt held them, or the budget ran out.
  const pending = state.pending.filter((d) => now - d.at <= maxAgeMs && !state.asked.covers(d.guid, d.id));
  state.pending = [];
  for (const d of pending) run.judged.add(d.guid);
  await settle(run, pending);

  const walk: Walk = state.walk ?? {
    stopBefore: Math.max(now - maxAgeMs, (state.lastWalkStartedAt ?? 0) - options.overlapMs),
    startedAt: now,
  };
  try {
    if ((await walkPages(run, walk)) === 'done') {
      state.lastWalkStartedAt = walk.startedAt;
      delete state.walk;
      return 'done';
    }
    state.walk = walk;
    round.report.walking++;
    return gauge.exhausted ? 'deferred' : 'unfinished';
  } finally {
    // What was asked for is remembered even when a page failed half-way.
    await saveSweepState(ctx.store, hook.id, state, ctx.clock.now());
  }
}

/** The providers' shared hooks (the App's webhook), each bound to the credential it is read with. */
export async function sharedHooks(ctx: AppContext): Promise<SweptHook[]> {
  const lists = await Promise.all(Object.values(ctx.providers).map((p) => p.sweep?.sharedHooks(ctx) ?? []));
  return lists.flat();
}

async function sweepShared(round: Round): Promise<void> {
  const { ctx, report } = round;
  let hooks: SweptHook[];
  try {
    hooks = await sharedHooks(ctx);
  } catch (e) {
    report.failed++;
    ctx.logger.warn("reading the providers' shared hooks failed", { error: e });
    return;
  }
  for (const hook of hooks) {
    report.endpoints++;
    try {
      await sweepHook(round, hook, hook.id, round.options.appPagesPerRound);
    } catch (e) {
      report.failed++;
      ctx.logger.warn('sweeping a shared hook failed', { endpointId: hook.id, error: e });
    }
  }
}

/**
 * One redelivery sweep. For each hook it walks the deliveries the code host lists, page by
 * page, from the newest back to where the last walk started (the whole 3-day window the
 * first time), within a page budget and the connection's rate budget: a walk that stops
 * early resumes at its cursor next round. Each delivery that no attempt of ours accepted
 * (no `done` mark of its id) is asked for again: a failed one, and on a hook registered at a
 * relay also a successful one, since the relay answers 2xx whether anyone listens or not.
 * Asked once per attempt and at most `maxRedeliveriesPerGuid` times per delivery, so a
 * delivery lost while the intake was down (or died during it) still starts its agents
 * (RELIABILITY 15). Failures are counted, not thrown. The GitHub App's webhook, when the App
 * is configured here with its key, is walked first, the same way, with the App's JWT
 * (app-hook.ts) and a page budget of its own.
 */
export async function sweepOnce(ctx: AppContext, opts: SweepOptions = {}): Promise<SweepReport> {
  const endpoints = await new EndpointRepo(ctx.store).list();
  const round = newRound(ctx, opts);
  const { report } = round;
  // The App's webhook first: it carries every installation's deliveries, so what a burst
  // loses is mostly there, and a round that runs out of time must not leave it for last.
  await sweepShared(round);
  for (const endpoint of endpoints) {
    if (endpoint.hookId === undefined) continue;
    report.endpoints++;
    try {
      await sweepEndpoint(round, endpoint);
    } catch (e) {
      report.failed++;
      ctx.logger.warn('sweeping a hook failed', { endpointId: endpoint.id, hookId: endpoint.hookId, error: e });
    }
  }
  reportSweep(ctx, report, 'redelivery sweep done');
  return report;
}

/** A round's (or a worker's batch's) counts as metrics and one log line. */
export function reportSweep(ctx: AppContext, report: SweepReport, message: string): void {
  ctx.metrics.count('sweep_redelivered', report.redelivered);
  if (report.failed > 0) ctx.metrics.count('sweep_failed', report.failed);
  if (report.deferred > 0) ctx.metrics.count('sweep_deferred', report.deferred);
  ctx.logger.info(message, { ...report });
}
