import { createHash } from 'node:crypto';
import type { AppContext } from '../ports/app-context';
import type { Logger } from '../observability/logger';
import { doneMark, finishTogether } from '../store/once-claim';
import { type ClaimEnd, withClaim } from '../store/with-claim';
import { keys } from '../store/table-design';

/** How long a processed delivery (id and body) is remembered; the sweep only looks at recent deliveries. */
export const deliveryClaimTtlSeconds = 7 * 24 * 3600;

/**
 * How long an attempt's claim holds before another attempt may take it over. Longer than
 * the intake function's 10 s timeout (and the local intake's 8 s deadline), so a live
 * attempt is not taken over; short, so the code host's or the sweep's redelivery of a
 * delivery whose attempt died is processed within seconds.
 */
export const deliveryLeaseSeconds = 15;

/** What the claim says about this attempt. */
export type DeliveryClaimOutcome =
  /** This attempt holds the claim: it processes the delivery. */
  | 'claimed'
  /** This delivery was processed (its events are queued). */
  | 'duplicate'
  /** This signed body was processed under another delivery id (a replay: the id is not signed). */
  | 'replay'
  /** Another attempt of it is in progress and its lease has not passed: answer 5xx, it is tried again. */
  | 'busy';

export interface DeliveryIdentity {
  /** The webhook route the delivery came through (stored as the claim's `endpointId`). */
  routeId: string;
  deliveryId: string;
  event: string;
  /** The raw signed bytes. */
  body: Buffer;
}

/** What came of a delivery's claim: the work ran, or did not (why), or the answer was due first. */
export type DeliveryClaimRun<T> =
  | { kind: 'ran'; value: T }
  | { kind: 'not_claimed'; outcome: Exclude<DeliveryClaimOutcome, 'claimed'> }
  | { kind: 'aborted'; late: Promise<T | undefined> };

export interface DeliveryClaimOptions {
  /** How long to wait while another attempt holds it: most attempts finish in milliseconds (ten copies at once: one fan-out, all answered 2xx). */
  busyWaitMs: number;
  /** The answer is due: stop waiting for another attempt. */
  signal: AbortSignal;
  /** And give the claim back at once, leaving the work to stop at its own next check of the signal. */
  abortGivesBack?: boolean;
  /** The done marks could not be written: the work's effects stand (its events are queued), so this is reported, not answered 5xx. */
  onFinishFailed: (e: unknown) => void;
}

/**
 * Runs `work` under the claim of one delivery attempt, taken on the signed body (its sha256):
 * a GitHub redelivery carries the same id and the same bytes, and a replay under a new id
 * carries the same bytes, so one conditional write tells both apart from a first attempt. It
 * is a once-claim (shared/store/with-claim.ts): `in_progress` with a lease, `done` only when
 * the work says so (after the enqueue), given back when the work says so, throws, or the
 * answer is due. The delivery id's own row (what the sweep looks up by the id GitHub lists)
 * is marked `done` beside it, in one call shared with the other marks of the same turn; an id
 * is not a claim, since two attempts with one id and different bytes cannot both be signed.
 */
export async function withDeliveryClaim<T>(
  ctx: Pick<AppContext, 'store' | 'clock' | 'sleep'>,
  log: Logger,
  d: DeliveryIdentity,
  options: DeliveryClaimOptions,
  work: () => Promise<ClaimEnd<T>>,
): Promise<DeliveryClaimRun<T>> {
  const attrs = { endpointId: d.routeId, deliveryId: d.deliveryId, event: d.event };
  const idKey = keys.deliveryClaim(d.routeId, d.deliveryId);
  const bodyKey = keys.deliveryBodyClaim(d.routeId, createHash('sha256').update(d.body).digest('hex'));
  const run = await withClaim(
    ctx,
    {
      key: bodyKey,
      leaseSeconds: deliveryLeaseSeconds,
      attrs,
      doneTtlSeconds: deliveryClaimTtlSeconds,
      marksWith: [idKey],
      together: true,
      wait: {
        waitMs: options.busyWaitMs,
        pauseMs: (attempt) => Math.round((10 << Math.min(attempt, 4)) * (0.5 + Math.random())),
        signal: options.signal,
      },
      ...(options.abortGivesBack ? { signal: options.signal } : {}),
      onFinishFailed: options.onFinishFailed,
      onReleaseFailed: (e) => log.error('could not release delivery claim; it lapses with its lease', { error: e }),
    },
    work,
  );
  if (run.kind === 'ran' || run.kind === 'aborted') return run;
  if (run.kind === 'busy') return { kind: 'not_claimed', outcome: 'busy' };
  // Done under this id: this delivery was processed. Under another id: a replay.
  if (run.item.deliveryId !== undefined && run.item.deliveryId !== d.deliveryId) return { kind: 'not_claimed', outcome: 'replay' };
  // The id's mark may have been lost with a crash after the body's: write it again, so the sweep sees it.
  await finishTogether(ctx.store, [doneMark(ctx.clock, idKey, deliveryClaimTtlSeconds, attrs)]).catch((e: unknown) =>
    log.warn('could not mark a processed delivery done', { error: e }),
  );
  return { kind: 'not_claimed', outcome: 'duplicate' };
}
