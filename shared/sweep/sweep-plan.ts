import type { AppContext } from '../ports/app-context';
import type { Queue } from '../ports';
import { EndpointRepo } from '../store/endpoint-repo';
import { keys } from '../store/table-design';
import { loadPlanStart, rotate, savePlanStart } from '../work/rotating-order';
import { sendWorkItems } from '../work/work-items';
import type { SweepWorkItem } from './sweep-item';
import { sharedHooks } from './sweep-once';

export interface SweepPlanOptions {
  /**
   * Hooks of ours planned per round at most: what the workers walk in one interval (the model
   * in docs/performance.md). A round of more plans this many and the next starts where it
   * stopped, so every hook is walked within ceil(hooks / this) intervals. The providers'
   * shared hooks (the App's webhook) are planned every round, beside these.
   */
  maxHooksPerRound?: number;
}

export const sweepPlanDefaults: Required<SweepPlanOptions> = { maxHooksPerRound: 60_000 };

export interface SweepPlanReport {
  /** Hooks this round could walk (shared ones included). */
  hooks: number;
  /** Work items sent: one per hook planned. */
  planned: number;
  /** The order key of the first hook of ours planned. */
  start?: string;
}

/** A hook's place in the round's order: a tenant's hooks side by side. */
const orderKey = (item: SweepWorkItem) => `${item.tenant}\u0000${item.hook}`;

/** The providers' shared hooks as this round's items; none when they cannot be read now (counted, logged). */
async function sharedItems(ctx: AppContext, plannedAt: number): Promise<SweepWorkItem[]> {
  try {
    const hooks = await sharedHooks(ctx);
    return hooks.map((hook) => ({ v: 1, plannedAt, hook: hook.id, shared: true, tenant: hook.id }));
  } catch (e) {
    ctx.metrics.count('sweep_failed');
    ctx.logger.warn("reading the providers' shared hooks failed", { error: e });
    return [];
  }
}

/**
 * The planner of a sweep round (the 5-minute schedule on AWS, the interval locally): one work
 * item per hook, sent to the sweep's work queue, each grouped by its tenant (SQS fair queues'
 * `MessageGroupId`, the connection, as dispatch groups its events), so a tenant with many
 * hooks does not hold back the others. The providers' shared hooks come first and every
 * round: the App's webhook carries every installation's deliveries, so what a burst loses is
 * mostly there. The hooks of ours follow in the rotating order whose start is kept in the
 * table (`PLAN#sweep`). Workers walk them (sweep-work.ts).
 */
export async function planSweepRound(ctx: AppContext, work: Queue, options: SweepPlanOptions = {}): Promise<SweepPlanReport> {
  const { maxHooksPerRound } = { ...sweepPlanDefaults, ...options };
  const plannedAt = ctx.clock.now();
  const shared = await sharedItems(ctx, plannedAt);
  const endpoints = await new EndpointRepo(ctx.store).list();
  const ours = endpoints.flatMap((e): SweepWorkItem[] =>
    e.hookId === undefined ? [] : [{ v: 1, plannedAt, hook: e.id, tenant: e.connectionId }],
  );
  const { planned, next } = rotate(ours, orderKey, await loadPlanStart(ctx.store, keys.sweepPlan()), maxHooksPerRound);
  await sendWorkItems(work, [...shared, ...planned], (item) => item.tenant);
  await savePlanStart(ctx.store, keys.sweepPlan(), next, plannedAt);
  const report: SweepPlanReport = {
    hooks: shared.length + ours.length,
    planned: shared.length + planned.length,
    ...(planned[0] ? { start: orderKey(planned[0]) } : {}),
  };
  if (planned.length < ours.length) ctx.metrics.count('sweep_unplanned', ours.length - planned.length);
  ctx.logger.info('sweep round planned', { ...report });
  return report;
}
