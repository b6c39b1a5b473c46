import * as z from 'zod';
import { parseWorkItem, type WorkItem } from '../work/work-items';
import type { PollUnit } from './poll-unit';

/**
 * A work item of a polling round: some units of one connection, planned at `plannedAt`.
 * The planner sends it on the work queue, grouped by its tenant; a worker takes it.
 */
export interface PollWorkItem extends WorkItem {
  units: PollUnit[];
}

const unitSchema = z.object({
  provider: z.enum(['github', 'contentsnare']),
  connectionId: z.string().min(1),
  key: z.string().min(1),
  subscriptions: z.number().int().nonnegative(),
  spec: z.unknown(),
});

const itemSchema = z.object({ v: z.literal(1), plannedAt: z.number().int().nonnegative(), units: z.array(unitSchema).min(1) });

/** A work item from its message body, or why not, naming the field. */
export function parsePollWorkItem(body: string): { item: PollWorkItem } | { error: string } {
  return parseWorkItem(body, itemSchema as z.ZodType<PollWorkItem>);
}
