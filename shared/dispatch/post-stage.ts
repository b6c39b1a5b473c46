import type { HeldClaim } from '../store/once-claim';
import type { AgentPace } from './agent-pace';
import type { DispatchCircuit } from './circuit';
import { claimEvent, markDone, releaseClaim } from './dispatch-claim';
import { deferralSeconds } from './deferral';
import type { EventInHand } from './event-stages';
import { postEvent, type PostOutcome } from './post-event';
import { tenantOf } from './tenant';
import { proceed, type AttemptNote, type Settlement, type StageOutcome } from './settlement';

/** Whether this attempt is the one probe of a half-open circuit: its answer must be recorded (or abandoned). */
export interface Admitted {
  probe: boolean;
}

/**
 * While the circuit is open the event is not sent: a delayed copy goes back on its lane's
 * queue, so an agent runtime that is down does not use up the event's receives.
 */
export function admitStage(a: EventInHand, circuit: DispatchCircuit | undefined): StageOutcome<Admitted> {
  const admission = circuit?.admit() ?? { kind: 'go' };
  if (admission.kind !== 'wait') return proceed({ probe: admission.kind === 'probe' });
  const { ctx, m, lane, event } = a;
  const delay = deferralSeconds(admission.untilMs - ctx.clock.now(), m.messageId);
  return {
    kind: 'postponed',
    to: lane.queue,
    copy: { id: event.id, body: m.body, group: tenantOf(event), delaySeconds: delay },
    announce: () => {
      ctx.metrics.count('dispatch_deferred');
      a.log.info('agent runtime circuit is open; event deferred', { delaySeconds: Math.ceil(delay) });
    },
    otherwise: { kind: 'failed', reason: 'circuit open and the deferred copy was not taken', delaySeconds: delay },
  };
}

/** A claim per event id makes two copies in flight deliver once, on any lane (RELIABILITY 18). */
export async function claimStage(
  a: EventInHand,
  circuit: DispatchCircuit | undefined,
  admitted: Admitted,
): Promise<StageOutcome<HeldClaim>> {
  const { ctx, event } = a;
  let claim: Awaited<ReturnType<typeof claimEvent>>;
  try {
    claim = await claimEvent(ctx.store, ctx.clock, event.id);
  } catch (e) {
    circuit?.abandon(admitted.probe);
    throw e;
  }
  if (claim.kind === 'claimed') return proceed(claim.held);
  circuit?.abandon(admitted.probe);
  if (claim.kind === 'done') {
    ctx.metrics.count('dispatch_duplicate');
    a.log.info('event already delivered; copy dropped');
    return { kind: 'done' };
  }
  a.log.info('event is being delivered by another worker; checking back later');
  return { kind: 'failed', reason: 'being delivered by another worker', delaySeconds: claim.retryInSeconds };
}

/**
 * The POST, and what its answer settles:
 * - delivered: the done mark and the history in one write, the claim-check body removed;
 * - no answer within the lane's limit: the event moves to the slow lane, where it gets the
 *   full limit (on a lane without one, it is retried in place);
 * - throttling (429, or 503 with Retry-After): a delayed copy instead, so throttling alone
 *   never dead-letters an event (RELIABILITY 19);
 * - any other non-2xx or network failure: postponed with the lane's backoff and failed, so the
 *   queue dead-letters it after its last try.
 */
export async function postStage(
  a: EventInHand,
  url: string,
  agent: { circuit?: DispatchCircuit; pace?: AgentPace },
  admitted: Admitted,
  held: HeldClaim,
): Promise<Settlement> {
  const { ctx, lane, event } = a;
  const { circuit } = agent;
  // The history, read since the event was taken (dispatch-batch.ts), is written with the POST's outcome (event-progress.ts).
  a.progress.readAhead();
  const startedAt = ctx.clock.now();
  const outcome = await postEvent(ctx, url, event, { timeoutMs: lane.postTimeoutMs, deadline: lane.deadline });
  // How long the runtime took to answer (the limit, when it did not): a cut connection tells nothing of its pace.
  if (outcome.status !== undefined) agent.pace?.note(ctx.clock.now() - startedAt);
  else if (outcome.kind === 'retry' && outcome.timedOut) agent.pace?.note(lane.postTimeoutMs);
  if (outcome.kind === 'delivered') {
    circuit?.record({ failed: false, probe: admitted.probe });
    const history = await a.progress.attemptRows(
      { at: startedAt, lane: lane.name, outcome: 'delivered', status: outcome.status },
      'delivered',
    );
    await markDone(ctx.store, ctx.clock, event.id, history);
    if (a.read.blobKey) await ctx.blobs.delete(a.read.blobKey).catch(() => undefined);
    ctx.metrics.count('dispatch_delivered');
    a.log.info('trigger event delivered', { status: outcome.status });
    return { kind: 'done' };
  }
  await releaseClaim(ctx.store, ctx.clock, held).catch((e: unknown) => a.log.warn('could not release dispatch claim', { error: e }));
  const failed = retried(a, outcome, startedAt);
  if (outcome.timedOut && lane.overflow) {
    // Slow is not failed: the circuit hears of it only if the slow lane's full limit passes too.
    circuit?.abandon(admitted.probe);
    return {
      kind: 'postponed',
      to: lane.overflow,
      copy: { id: event.id, body: a.m.body, group: tenantOf(event), delaySeconds: 0 },
      attempt: { at: startedAt, lane: lane.name, outcome: 'timed_out', reason: outcome.reason },
      announce: () => {
        ctx.metrics.count('dispatch_slow_lane');
        a.log.warn('agent runtime did not answer within the main lane limit; event moved to the slow lane', {
          limitMs: lane.postTimeoutMs,
        });
      },
      otherwise: failed,
    };
  }
  circuit?.record({ failed: true, retryAfterSeconds: outcome.retryAfterSeconds, probe: admitted.probe });
  if (!outcome.throttled) return failed;
  return {
    kind: 'postponed',
    to: lane.queue,
    copy: { id: event.id, body: a.m.body, group: tenantOf(event), delaySeconds: failed.delaySeconds },
    attempt: { ...failed.attempt, outcome: 'throttled' },
    announce: () => {
      ctx.metrics.count('dispatch_throttled');
      a.log.warn('agent runtime is throttling; event re-enqueued', { status: outcome.status, delaySeconds: failed.delaySeconds });
    },
    otherwise: failed,
  };
}

/** A POST that did not deliver, tried again in place with the lane's backoff. */
function retried(
  a: EventInHand,
  outcome: Extract<PostOutcome, { kind: 'retry' }>,
  startedAt: number,
): Extract<Settlement, { kind: 'failed' }> & { attempt: AttemptNote } {
  const { ctx, lane, m } = a;
  const delay = lane.backoff(m.receiveCount, outcome.retryAfterSeconds);
  return {
    kind: 'failed',
    reason: outcome.reason,
    delaySeconds: delay,
    announce: () => {
      ctx.metrics.count('dispatch_retry');
      a.log.warn('agent runtime did not take the event; will retry', {
        reason: outcome.reason,
        receiveCount: m.receiveCount,
        delaySeconds: delay,
      });
    },
    attempt: {
      at: startedAt,
      lane: lane.name,
      outcome: outcome.timedOut ? 'timed_out' : 'failed',
      ...(outcome.status !== undefined ? { status: outcome.status } : {}),
      reason: outcome.reason,
    },
  };
}
