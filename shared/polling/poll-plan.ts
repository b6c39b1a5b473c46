import { tenantOf } from '../dispatch/tenant';
import type { AppContext } from '../ports/app-context';
import type { Queue } from '../ports';
import { keys } from '../store/table-design';
import { loadPlanStart, rotate, savePlanStart } from '../work/rotating-order';
import { sendWorkItems } from '../work/work-items';
import { planUnits } from './poll-once';
import type { PollUnit } from './poll-unit';
import type { PollWorkItem } from './work-item';

export interface PlanOptions {
  /**
   * Units planned per round at most: what the workers read in one interval (the model in
   * docs/performance.md). A round of more units plans this many and the next round starts
   * where it stopped, so every unit is read within ceil(units / this) intervals.
   */
  maxUnitsPerRound?: number;
  /** Units in one work item at most. */
  unitsPerItem?: number;
  /** A work item's body in bytes at most (an SQS message takes 256 KiB). */
  itemBytes?: number;
}

export const planDefaults: Required<PlanOptions> = { maxUnitsPerRound: 120_000, unitsPerItem: 25, itemBytes: 192 * 1024 };

export interface PlanReport {
  /** Units this round could read. */
  units: number;
  /** Units sent in work items this round. */
  planned: number;
  items: number;
  /** The order key of the first unit planned. */
  start?: string;
}

/** A unit's place in the round's order: a connection's units side by side, so one work item holds one tenant's. */
const orderKey = (u: PollUnit) => `${u.connectionId}\u0000${u.key}`;

/** Units packed into work items: consecutive units of one connection, within the count and byte bounds. */
export function packItems(units: readonly PollUnit[], plannedAt: number, o: Required<PlanOptions>): PollWorkItem[] {
  const items: PollWorkItem[] = [];
  let current: PollWorkItem | undefined;
  let bytes = 0;
  for (const unit of units) {
    const size = Buffer.byteLength(JSON.stringify(unit));
    const fits =
      current !== undefined &&
      current.units[0]?.connectionId === unit.connectionId &&
      current.units.length < o.unitsPerItem &&
      bytes + size <= o.itemBytes;
    if (!fits) {
      current = { v: 1, plannedAt, units: [] };
      items.push(current);
      bytes = 64;
    }
    current?.units.push(unit);
    bytes += size;
  }
  return items;
}

/**
 * The planner of a polling round (the schedule on AWS, the interval locally): lists every
 * provider's units, takes them in the rotating order, and sends them as work items to the
 * work queue, each grouped by its connection's tenant (SQS fair queues' `MessageGroupId`), so
 * one tenant's thousands of sources do not hold back the others'. Workers read them
 * (poll-work.ts). The start of the next round is kept in the table (`PLAN#poll`).
 */
export async function planPollRound(ctx: AppContext, work: Queue, options: PlanOptions = {}): Promise<PlanReport> {
  const o = { ...planDefaults, ...options };
  const units = await planUnits(ctx);
  const { planned, next } = rotate(units, orderKey, await loadPlanStart(ctx.store, keys.pollPlan()), o.maxUnitsPerRound);
  const items = packItems(planned, ctx.clock.now(), o);
  await sendWorkItems(work, items, (item) => tenantOf({ connectionId: (item.units[0] as PollUnit).connectionId }));
  await savePlanStart(ctx.store, keys.pollPlan(), next, ctx.clock.now());
  const report: PlanReport = {
    units: units.length,
    planned: planned.length,
    items: items.length,
    start: planned[0] && orderKey(planned[0]),
  };
  if (planned.length < units.length) ctx.metrics.count('poll_unplanned', units.length - planned.length);
  ctx.logger.info('poll round planned', { ...report });
  return report;
}
