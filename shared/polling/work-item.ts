import * as z from 'zod';
import type { PollUnit } from './poll-unit';

/**
 * A work item of a polling round: some units of one connection, planned at `plannedAt`.
 * The planner sends it on the work queue, grouped by its tenant; a worker takes it.
 */
export interface PollWorkItem {
  v: 1;
  /** Epoch ms of the round that planned it. */
  plannedAt: number;
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
export function parseWorkItem(body: string): { item: PollWorkItem } | { error: string } {
  let json: unknown;
  try {
    json = JSON.parse(body);
  } catch {
    return { error: 'the body is not JSON' };
  }
  const parsed = itemSchema.safeParse(json);
  if (parsed.success) return { item: parsed.data as PollWorkItem };
  const issue = parsed.error.issues[0];
  return { error: `${issue?.path.join('.') || 'body'}: ${issue?.message}` };
}
