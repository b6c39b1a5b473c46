import type { AppContext } from '../ports/app-context';
import type { InboundMessage } from '../ports';
import { addReport, emptyReport, pollUnits, reportRound, type PollOptions, type PollReport } from './poll-once';
import type { PollUnit } from './poll-unit';
import { takeWorkItems } from '../work/work-items';
import { parsePollWorkItem } from './work-item';

export interface WorkOptions extends PollOptions {
  /**
   * A work item first received this long after its round planned it is dropped: a later
   * round has planned its units again (default: the poll interval).
   */
  staleAfterMs?: number;
}

export interface WorkReport extends PollReport {
  /** Work items dropped because a later round planned their units again. */
  stale: number;
  /** Work items that do not read as one (left to the queue: they reach its dead-letter queue). */
  invalid: number;
}

/**
 * A worker's batch of work items (the SQS event source on AWS, the in-process worker locally):
 * their units read together, connections taking turns and each capped as in one round (a
 * connection's token read once a batch, its rate reserve kept). A unit in two items of the
 * batch is read once. An item whose unit failed (not a rate limit) is answered as failed, so
 * the queue gives it again after its visibility timeout and dead-letters it after its max
 * receives; a rate-limited unit waits for the next round instead.
 */
export async function pollWorkItems(
  ctx: AppContext,
  messages: readonly InboundMessage[],
  options: WorkOptions = {},
): Promise<{ report: WorkReport; failedMessageIds: string[] }> {
  const staleAfterMs = options.staleAfterMs ?? ctx.config.pollIntervalSeconds * 1000;
  const report: WorkReport = { ...emptyReport([]), stale: 0, invalid: 0 };
  const taken = takeWorkItems(ctx, messages, parsePollWorkItem, staleAfterMs);
  const { failedMessageIds } = taken;
  report.stale = taken.stale;
  report.invalid = taken.invalid;
  const unitsOf = new Map<string, PollUnit[]>();
  const byKey = new Map<string, PollUnit>();
  for (const { messageId, item } of taken.items) {
    unitsOf.set(messageId, item.units);
    for (const u of item.units) if (!byKey.has(u.key)) byKey.set(u.key, u);
  }
  const run = await pollUnits(ctx, [...byKey.values()], options);
  addReport(report, run.report);
  for (const [messageId, units] of unitsOf) if (units.some((u) => run.failedKeys.has(u.key))) failedMessageIds.push(messageId);
  if (report.stale > 0) ctx.metrics.count('poll_stale', report.stale);
  reportRound(ctx, report, 'poll work done');
  return { report, failedMessageIds };
}
