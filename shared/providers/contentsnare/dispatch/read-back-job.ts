import { createHash, randomUUID } from 'node:crypto';
import { triggerCatalogOf } from '../../../ports/provider-contract';
import * as z from 'zod';
import { snareClientFor } from '../connection-client';
import { readBack } from '../read-back';
import { SnareHookRepo, snareRouteId } from '../snare-hook';
import { recordObservation } from '../subject-memory';
import { buildTriggerEvents, enqueueEvents, subscriptionsByRoute } from '../../../dispatch/fan-out';
import { jobKindOf, readJob } from '../../../dispatch/job-message';
import type { JobKind } from '../../../dispatch/provider-work';
import type { Settlement } from '../../../dispatch/settlement';
import { snareTriggerRows } from '../triggers/rows';
import { AppError } from '../../../domain/errors';
import type { SnareDelivery } from '../mapping/snare-delivery';
import { changeIdentity, commentIdentity, snareMappedEvent } from '../mapping/snare-events';
import { snareTriggerNames, type SnareTriggerId } from '../../../domain/triggers';
import type { OutgoingMessage } from '../../../ports';
import type { AppContext } from '../../../ports/app-context';
import { ConnectionRepo } from '../../../store/connection-repo';
import { claimOnce, finishOnce, releaseOnce } from '../../../store/once-claim';
import { keys } from '../../../store/table-design';

/**
 * The second half of a collection-service delivery (the first is the intake's accept,
 * shared/providers/contentsnare/intake/snare-source.ts): a queue message naming the connection and what the
 * delivery claims, worked by the dispatch consumer like any message of its queue. It reads
 * the records back within the account's rate limit, decides "once" on the record's state
 * (subject-memory.ts), claims the change, and queues the trigger events. A read-back that
 * cannot get the limit goes back on the queue for when the limit says (not counted as a
 * failure); any other failure is tried again with the lane's backoff and, after the queue's
 * last receive, dead-lettered with the other messages.
 */

export const snareReadBackKind = 'contentsnare.read_back';

/** Per read: a job waits this long for the account's limit, then goes back on the queue (the consumer's time is the events'). */
const readBackMaxWaitMs = 5000;
/** A job put back this often for the limit alone is treated as failing (backoff, then dead-lettered). */
const maxDeferrals = 50;
/** As the intake's delivery claims: a 15 s lease, kept 7 days once done. */
const claimLeaseSeconds = 15;
const claimDoneSeconds = 7 * 24 * 3600;

const idText = z.string().regex(/^[A-Za-z0-9_-]{1,100}$/);
const deliverySchema = z
  .object({
    event: z.enum(snareTriggerNames),
    subject: z.enum(['request', 'client', 'field', 'comment']),
    id: idText.optional(),
    requestId: idText.optional(),
    pageId: idText.optional(),
    fieldId: idText.optional(),
    claimed: z.record(z.string().max(40), z.union([z.string().max(4000), z.number(), z.boolean()])).optional(),
  })
  .strict()
  .refine((d) => snareTriggerRows[d.event].subject === d.subject, { path: ['subject'], message: "is not the event's subject" });

const jobSchema = z
  .object({
    kind: z.literal(snareReadBackKind),
    connectionId: z.string().regex(/^conn_[0-9a-f]{32}$/),
    delivery: deliverySchema,
    /** When the intake accepted the delivery: the events' `occurredAt`. */
    receivedAt: z.iso.datetime(),
    /** Times put back on the queue for the rate limit. */
    deferrals: z.number().int().min(0).max(maxDeferrals),
  })
  .strict();

export type SnareReadBackJob = z.infer<typeof jobSchema>;

/** A job as much as an operator's listing reads of it, however it came to be dead-lettered. */
const deadLetterSchema = z.object({
  kind: z.literal(snareReadBackKind),
  connectionId: z.string(),
  delivery: z.object({ event: z.string() }).loose(),
  receivedAt: z.string().optional(),
});

/** The queue message of a job (`delaySeconds`: not before then). */
export function snareReadBackMessage(job: SnareReadBackJob, delaySeconds = 0): OutgoingMessage {
  return {
    id: `rb-${randomUUID()}`,
    body: JSON.stringify(job),
    delaySeconds: Math.max(0, Math.min(900, Math.ceil(delaySeconds))),
    // The connection's group, as its trigger events (tenant.ts).
    group: job.connectionId,
  };
}

/** A new job for a delivery the intake accepted. */
export function newSnareReadBack(connectionId: string, delivery: SnareDelivery, nowMs: number): SnareReadBackJob {
  // The parse keeps only strings, numbers and booleans of a claimed comment (snare-delivery.ts).
  const queued = delivery as SnareReadBackJob['delivery'];
  return { kind: snareReadBackKind, connectionId, delivery: queued, receivedAt: new Date(nowMs).toISOString(), deferrals: 0 };
}

/** True when a queue message is a read-back job (well formed or not), rather than a trigger event. */
export function isSnareReadBack(body: string): boolean {
  return jobKindOf(body, [snareReadBackJobKind]) !== undefined;
}

/**
 * The job kind dispatch works: done when its events are queued (or there is nothing to
 * announce, or it went back on the queue for the limit); failed when it is to be tried again
 * (with the lane's backoff) or can never be read (at once, so the queue dead-letters it intact).
 */
export const snareReadBackJobKind: JobKind = {
  kind: snareReadBackKind,
  describe(body) {
    const job = deadLetterSchema.safeParse(body);
    return job.success
      ? { trigger: `contentsnare.${job.data.delivery.event}`, deliveryId: `read-back for ${job.data.connectionId}` }
      : undefined;
  },
  async work(ctx, m, lane) {
    const read = readJob(ctx, m, jobSchema, 'read-back job');
    if (!read.ok) return read.settled;
    const { job } = read;
    const log = ctx.logger.child({ messageId: m.messageId, connectionId: job.connectionId, event: job.delivery.event });
    try {
      await runSnareReadBack(ctx, job);
      return { kind: 'done' };
    } catch (e) {
      const retryAfter = e instanceof AppError && typeof e.details?.retryAfter === 'number' ? e.details.retryAfter : undefined;
      const reason = e instanceof Error ? e.message : String(e);
      const failed: Settlement = {
        kind: 'failed',
        reason,
        delaySeconds: lane.backoff(m.receiveCount, retryAfter),
        announce: () => log.warn('collection-service read-back failed; it is tried again with backoff', { error: e }),
      };
      if (!(e instanceof AppError && e.code === 'rate_limited' && job.deferrals < maxDeferrals)) return failed;
      return {
        kind: 'postponed',
        to: lane.queue,
        copy: snareReadBackMessage({ ...job, deferrals: job.deferrals + 1 }, retryAfter ?? 5),
        announce: () => {
          ctx.metrics.count('contentsnare_read_back_deferred');
          log.info("the account's read limit is busy; the read-back goes back on the queue", { retryAfter });
        },
        otherwise: failed,
      };
    }
  },
};

/**
 * Reads a delivery's records back and queues its trigger events once per change. Throws what
 * is worth another try (the limit, the service, the store); a hook, connection or record that
 * is gone, or a record that does not bear the event out, ends the job with nothing queued.
 */
export async function runSnareReadBack(ctx: AppContext, job: SnareReadBackJob): Promise<number> {
  const d = job.delivery;
  const log = ctx.logger.child({ connectionId: job.connectionId, event: d.event });
  const [hook, connection] = await Promise.all([
    new SnareHookRepo(ctx.store).get(job.connectionId),
    new ConnectionRepo(ctx.store).get(job.connectionId),
  ]);
  if (!hook?.events.includes(d.event) || connection?.provider !== 'contentsnare' || connection.status !== 'connected') {
    ctx.metrics.count('contentsnare_unconfirmed', 1, { event: d.event, reason: 'connection' });
    log.info('the connection no longer takes this event (hook removed, or connection inactive); nothing dispatched');
    return 0;
  }
  const seen = await readBack(snareClientFor(ctx, connection, { maxWaitMs: readBackMaxWaitMs }), d);
  if (seen.kind === 'unseen') {
    ctx.metrics.count('contentsnare_unconfirmed', 1, { event: d.event, reason: 'unseen' });
    log.warn('collection-service delivery names a record the connection cannot see; nothing dispatched', { why: seen.why });
    return 0;
  }
  const rb = seen.readBack;
  let deliveryId: string;
  if (rb.subject === 'comment') deliveryId = commentIdentity(rb, d.claimed ?? {});
  else {
    const episode = (await recordObservation(ctx, connection.id, rb, d.event))[d.event];
    if (!episode) {
      ctx.metrics.count('contentsnare_unconfirmed', 1, { event: d.event, reason: 'state' });
      log.warn('the record as read back does not bear the delivery out; nothing dispatched');
      return 0;
    }
    deliveryId = changeIdentity(d.event, rb, episode);
  }
  const trigger = `contentsnare.${d.event}` as SnareTriggerId;
  const scope = snareRouteId(connection.id);
  // The very row the recovery check claims for this change (shared/providers/contentsnare/polling/poll-contentsnare.ts).
  const key = keys.deliveryBodyClaim(scope, createHash('sha256').update(deliveryId).digest('hex'));
  const attrs = { endpointId: scope, deliveryId, event: d.event };
  const taken = await claimOnce(ctx.store, ctx.clock, key, claimLeaseSeconds, attrs);
  if (taken.kind === 'done') {
    ctx.metrics.count('webhook_duplicate');
    log.info('this change was announced already (a copy of the delivery, or the recovery check)');
    return 0;
  }
  if (taken.kind !== 'claimed') throw new AppError('unavailable', 'Another read-back of this change is in progress');
  try {
    const routes = await subscriptionsByRoute(ctx, [trigger], (t) => keys.webhookRoute(scope, t));
    const events = buildTriggerEvents({
      catalog: triggerCatalogOf(ctx.providers),
      connection,
      subscriptions: routes,
      mapped: [snareMappedEvent(d.event, rb, d.claimed)],
      deliveryId,
      occurredAt: job.receivedAt,
    });
    await enqueueEvents(ctx, events);
    await finishOnce(ctx.store, ctx.clock, key, claimDoneSeconds, attrs);
    ctx.metrics.count('webhook_accepted');
    ctx.metrics.count('trigger_events_enqueued', events.length);
    log.info('collection-service delivery read back', { enqueued: events.length });
    return events.length;
  } catch (e) {
    await releaseOnce(ctx.store, ctx.clock, { key, fence: taken.fence }).catch(() => false);
    throw e;
  }
}
