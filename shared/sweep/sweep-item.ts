import * as z from 'zod';
import { parseWorkItem, type WorkItem } from '../work/work-items';

/**
 * A work item of a sweep round: one hook to walk. The planner sends it on the sweep's work
 * queue, grouped by its tenant; a worker walks the hook (sweep-work.ts).
 */
export interface SweepWorkItem extends WorkItem {
  /** The hook's id: an endpoint's, or a provider's shared hook's (the App's webhook: `app`). */
  hook: string;
  /** A provider's shared hook, read with the access its provider gives (the App's JWT), not an endpoint's. */
  shared?: true;
  /** Its tenant on the queue: the endpoint's connection; a shared hook is a tenant of its own. */
  tenant: string;
}

const itemSchema = z.object({
  v: z.literal(1),
  plannedAt: z.number().int().nonnegative(),
  hook: z.string().min(1).max(200),
  shared: z.literal(true).optional(),
  tenant: z.string().min(1).max(200),
});

/** A sweep work item from its message body, or why not, naming the field. */
export function parseSweepWorkItem(body: string): { item: SweepWorkItem } | { error: string } {
  return parseWorkItem(body, itemSchema as z.ZodType<SweepWorkItem>);
}
