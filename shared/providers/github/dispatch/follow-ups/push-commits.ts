import * as z from 'zod';
import type { AppContext } from '../../../../ports/app-context';
import { AppError } from '../../../../domain/errors';
import { followUpMember, pushCommitsFollowUp, type PushCommitsFollowUp } from '../../mapping/follow-ups';
import type { TriggerEvent } from '../../../../domain/model';
import { stableId } from '../../../../domain/stable-id';
import { toQueueMessage } from '../../../../dispatch/event-message';
import { enqueueEvents, triggerEventId } from '../../../../dispatch/fan-out';
import type { FollowUpHandler } from '../../../../dispatch/provider-work';
import { repoPath, upstreamMessage } from '../../webhooks/rest-call';
import { followUpRateReserve, readAsConnection } from './code-host-read';

/**
 * The commits a push payload could not carry (it holds at most 2,048), read through the
 * compare API (`GET /repos/{o}/{r}/compare/{base}...{head}`, 100 commits a page, oldest
 * first) and announced as new_commit, one event per commit as the delivery's own are (same
 * event ids: `commit:<sha>`), for the subscription the follow-up event was matched to.
 * Each step reads a few pages, enqueues their commits, then enqueues the follow-up for the
 * next page: every step is bounded in time, and a crash repeats at most one step (whose
 * events dispatch drops by id). When the token's budget runs low the next step waits for
 * the reset. At most `maxPages` pages (20,000 commits beyond the payload) are read.
 */

const perPage = 100;
const pagesPerStep = 5;
export const maxPages = 200;
/** SQS delays a message at most 15 minutes; a longer wait is taken in turns. */
const maxDelaySeconds = 900;

const person = z.object({ name: z.string().nullish(), email: z.string().nullish(), date: z.string().nullish() });
const compareCommit = z.object({
  sha: z.string(),
  html_url: z.string().nullish(),
  commit: z.object({
    message: z.string().nullish(),
    tree: z.object({ sha: z.string() }).nullish(),
    author: person.nullish(),
    committer: person.nullish(),
  }),
  author: z.object({ login: z.string() }).nullish(),
  committer: z.object({ login: z.string() }).nullish(),
});
const comparePage = z.object({ total_commits: z.number().nullish(), commits: z.array(compareCommit) });
type CompareCommit = z.output<typeof compareCommit>;

/** A compared commit in the shape the push payload gives its commits (no file lists: the compare has none per commit). */
function asPushCommit(c: CompareCommit): Record<string, unknown> {
  const who = (p: z.output<typeof person> | null | undefined, login: string | undefined) =>
    p ? { name: p.name ?? undefined, email: p.email ?? undefined, username: login } : undefined;
  return {
    id: c.sha,
    tree_id: c.commit.tree?.sha,
    message: c.commit.message ?? '',
    timestamp: c.commit.author?.date ?? c.commit.committer?.date,
    url: c.html_url,
    author: who(c.commit.author, c.author?.login),
    committer: who(c.commit.committer, c.committer?.login),
  };
}

/** Reads and announces the next pages, and queues the follow-up for the pages after them. */
export async function announceCommitsBeyondPayload(ctx: AppContext, event: TriggerEvent): Promise<void> {
  const parsed = pushCommitsFollowUp.safeParse(event.event[followUpMember]);
  if (!parsed.success) {
    ctx.logger.error('push follow-up event does not read as one; dropped', { eventId: event.id });
    return;
  }
  const followUp = parsed.data;
  const known = new Set(followUp.inPayload);
  const basehead = `${encodeURIComponent(followUp.base)}...${encodeURIComponent(followUp.head)}`;
  const log = ctx.logger.child({ eventId: event.id, repository: followUp.repository, page: followUp.page });
  let page = followUp.page;
  let more = true;
  let waitSeconds: number | undefined;
  const events: TriggerEvent[] = [];
  for (let step = 0; step < pagesPerStep && more && page <= maxPages; step++) {
    const path = `${repoPath(followUp.repository)}/compare/${basehead}?per_page=${perPage}&page=${page}`;
    const read = await readAsConnection(ctx, event.connectionId, path);
    if (!read) {
      log.warn('the connection is gone or must be reconnected: the commits beyond the push payload are not read');
      return;
    }
    if (read.rateLimited) {
      waitSeconds = read.resetInSeconds ?? 60;
      break;
    }
    if (read.status === 404 || read.status === 422) {
      // The compare no longer exists (a force-push dropped `head`, or the base is gone): nothing left to read.
      log.warn('the compare of the push is not available; the commits beyond its payload are not read', { status: read.status });
      more = false;
      break;
    }
    const body = read.status === 200 ? comparePage.safeParse(read.body) : undefined;
    if (!body?.success)
      throw new AppError('upstream_error', `Reading the commits of a push failed: ${upstreamMessage(read)}`, {
        upstreamStatus: read.status,
      });
    for (const c of body.data.commits) {
      if (known.has(c.sha)) continue;
      known.add(c.sha);
      const mapped = { trigger: event.trigger, dedupeKey: `commit:${c.sha}` };
      events.push({
        ...event,
        id: triggerEventId(event.subscriptionId, mapped, event.deliveryId),
        event: { ...followUp.push, commit: asPushCommit(c) },
      });
    }
    more = body.data.commits.length === perPage && page * perPage < (body.data.total_commits ?? 0);
    page++;
    if (more && read.remaining !== undefined && read.remaining < followUpRateReserve) {
      waitSeconds = read.resetInSeconds ?? 60;
      break;
    }
  }
  await enqueueEvents(ctx, events);
  ctx.metrics.count('dispatch_push_commits_read', events.length);
  if (!more) return;
  if (page > maxPages) {
    ctx.metrics.count('dispatch_push_commits_capped');
    log.warn(`push has more than ${maxPages * perPage} commits beyond its payload: the rest are not announced`);
    return;
  }
  const next: PushCommitsFollowUp = { ...followUp, page };
  const continuation: TriggerEvent = {
    ...event,
    id: stableId('evt_', [event.id, 'page', String(page)]),
    event: { [followUpMember]: next },
  };
  const message = await toQueueMessage(ctx, continuation);
  const delaySeconds = waitSeconds === undefined ? undefined : Math.min(maxDelaySeconds, Math.max(1, waitSeconds));
  await ctx.queue.sendBatch([{ ...message, ...(delaySeconds !== undefined ? { delaySeconds } : {}) }]);
  if (delaySeconds !== undefined) log.info('rate budget low: the next commits of the push are read after a wait', { delaySeconds });
}

/** A push's follow-up event: never delivered itself; it reads and announces the commits beyond the payload. */
export const pushCommits: FollowUpHandler = {
  kind: 'push_commits',
  applies: (event) => event.trigger === 'github.new_commit' && followUpMember in event.event,
  async run(ctx, event) {
    await announceCommitsBeyondPayload(ctx, event);
    return 'handled';
  },
};
