import { AppError } from '../domain/errors';
import type { AppContext } from '../ports/app-context';
import type { InboundMessage, Queue } from '../ports';
import { EndpointRepo } from '../store/endpoint-repo';
import { tryLease } from '../store/lease';
import { sendWorkItems, takeWorkItems } from '../work/work-items';
import { parseSweepWorkItem, type SweepWorkItem } from './sweep-item';
import type { SweptHook } from './swept-hook';
import {
  newRound,
  reportSweep,
  sharedHooks,
  sweepEndpoint,
  sweepHook,
  type Round,
  type SweepOptions,
  type SweepReport,
  type WalkOutcome,
} from './sweep-once';

export interface SweepWorkOptions extends SweepOptions {
  /** A first receive this long after its round planned it is dropped: a later round planned the hook again (default: the sweep interval). */
  staleAfterMs?: number;
  /**
   * The work queue: a hook whose walk stopped at its page or time budget continues in a new
   * item sent here, at once rather than next round. Absent: it resumes next round.
   */
  continueOn?: Queue;
  /** How long a worker's hold on a hook lasts if the worker dies (above the function's 2-minute timeout). */
  leaseSeconds?: number;
}

export interface SweepWorkReport extends SweepReport {
  /** Items dropped because a later round planned their hook again. */
  stale: number;
  /** Messages that do not read as a work item. */
  invalid: number;
  /** Items dropped because another worker was walking their hook (it carries the walk on). */
  busy: number;
  /** Hooks whose walk continues in a new item. */
  continued: number;
}

/** The code host refused the hook itself (gone, or no longer ours to read): the next round meets it again; another receive would not help. */
function refusedByCodeHost(e: unknown): boolean {
  const status = e instanceof AppError ? e.details?.upstreamStatus : undefined;
  return typeof status === 'number' && status >= 400 && status < 500 && e instanceof AppError && e.code !== 'rate_limited';
}

/** Walks the item's hook: a shared one bound by its provider (the App's JWT), one of ours with its connection's token. */
async function sweepItem(round: Round, item: SweepWorkItem, shared: () => Promise<SweptHook[]>): Promise<WalkOutcome | 'skipped'> {
  if (item.shared) {
    const found = (await shared()).find((hook) => hook.id === item.hook);
    // No longer configured here (the App's key removed): nothing to walk.
    if (!found) return 'skipped';
    return sweepHook(round, found, found.id, round.options.appPagesPerRound);
  }
  const endpoint = await new EndpointRepo(round.ctx.store).get(item.hook);
  return endpoint ? sweepEndpoint(round, endpoint) : 'skipped';
}

/**
 * A worker's batch of sweep work items (the SQS event source on AWS, the in-process worker
 * locally): each item's hook walked side by side, within the sweep's page budget and the
 * batch's time (`roundMs`), keeping its cursor in its sweep-state row. A worker holds a lease
 * on the hook while it walks it (`LEASE#sweep#<hook>`), so two items of one hook (a round's
 * and a continuation) never walk it at once: the second is dropped (`busy`). A walk stopped
 * by its budget continues in a new item on `continueOn`; one stopped by its token's rate
 * budget waits for the next round. An item whose hook failed is answered as failed, for the
 * queue to give it again and dead-letter it after its last receive, unless the code host
 * refused the hook itself (4xx), which another receive would not change.
 */
export async function sweepWorkItems(
  ctx: AppContext,
  messages: readonly InboundMessage[],
  options: SweepWorkOptions = {},
): Promise<{ report: SweepWorkReport; failedMessageIds: string[] }> {
  const staleAfterMs = options.staleAfterMs ?? ctx.config.sweepIntervalSeconds * 1000;
  const taken = takeWorkItems(ctx, messages, parseSweepWorkItem, staleAfterMs);
  const round = newRound(ctx, options);
  const report: SweepWorkReport = Object.assign(round.report, { stale: taken.stale, invalid: taken.invalid, busy: 0, continued: 0 });
  const failedMessageIds = [...taken.failedMessageIds];
  const continuing: SweepWorkItem[] = [];
  let sharedRead: Promise<SweptHook[]> | undefined;
  const shared = () => {
    sharedRead ??= sharedHooks(ctx);
    return sharedRead;
  };
  await Promise.all(
    taken.items.map(async ({ messageId, item }) => {
      report.endpoints++;
      try {
        const lease = { name: `sweep#${item.hook}`, owner: messageId, ttlSeconds: options.leaseSeconds ?? 150 };
        const run = await tryLease(ctx, lease, () => sweepItem(round, item, shared));
        if (!run.held) report.busy++;
        else if (run.value === 'unfinished' && options.continueOn) continuing.push({ ...item, plannedAt: ctx.clock.now() });
      } catch (e) {
        report.failed++;
        if (!refusedByCodeHost(e)) failedMessageIds.push(messageId);
        ctx.logger.warn('sweeping a hook failed', { endpointId: item.hook, error: e });
      }
    }),
  );
  if (options.continueOn && continuing.length > 0) {
    // Not sent: those walks resume at their cursors next round.
    await sendWorkItems(options.continueOn, continuing, (item) => item.tenant).then(
      () => {
        report.continued = continuing.length;
      },
      (e: unknown) =>
        ctx.logger.warn('sending the continuing walks failed; they resume next round', { hooks: continuing.length, error: e }),
    );
  }
  if (report.stale > 0) ctx.metrics.count('sweep_stale', report.stale);
  reportSweep(ctx, report, 'sweep work done');
  return { report, failedMessageIds };
}
