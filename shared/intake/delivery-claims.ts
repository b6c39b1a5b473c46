import { createHash } from 'node:crypto';
import type { AppContext } from '../ports/app-context';
import type { Logger } from '../observability/logger';
import type { Item, Key } from '../ports';
import { doneMark, finishTogether, releaseOnce, waitForClaim, type HeldClaim } from '../store/once-claim';
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
  endpointId: string;
  deliveryId: string;
  event: string;
  /** The raw signed bytes. */
  body: Buffer;
}

/**
 * The claim of one delivery attempt, taken on the signed body (its sha256): a GitHub
 * redelivery carries the same id and the same bytes, and a replay under a new id carries
 * the same bytes, so one conditional write tells both apart from a first attempt. It is a
 * once-claim (shared/store/once-claim.ts): `in_progress` with a lease, `done` only after the
 * enqueue. The delivery id's own row (what the sweep looks up by the id GitHub lists) is
 * written `done` beside it then; an id is not a claim, since two attempts with one id and
 * different bytes cannot both be signed.
 */
export class DeliveryClaims {
  private held: HeldClaim | undefined;
  /** The take in flight: a release waits for it, so a claim it wins after the answer left is still given back. */
  private taking: Promise<unknown> | undefined;
  /** The rows `finish` marks done: the body's, then the id's. */
  private marked: Array<{ key: Key; attrs: Record<string, unknown> }> = [];

  constructor(
    private readonly ctx: Pick<AppContext, 'store' | 'clock' | 'sleep'>,
    private readonly log: Logger,
  ) {}

  /**
   * Takes the claim. When another attempt holds it, tries again for up to `busyWaitMs` with
   * a growing pause (the injected sleep), since most attempts finish in milliseconds (ten
   * copies at once: one fan-out, all answered 2xx); `signal` ends the wait early (the answer
   * is due).
   */
  async take(d: DeliveryIdentity, busyWaitMs: number, signal: AbortSignal): Promise<DeliveryClaimOutcome> {
    const attrs = { endpointId: d.endpointId, deliveryId: d.deliveryId, event: d.event };
    const idKey = keys.deliveryClaim(d.endpointId, d.deliveryId);
    const bodyKey = keys.deliveryBodyClaim(d.endpointId, createHash('sha256').update(d.body).digest('hex'));
    this.marked = [
      { key: bodyKey, attrs },
      { key: idKey, attrs },
    ];
    const taking = waitForClaim(this.ctx, bodyKey, {
      leaseSeconds: deliveryLeaseSeconds,
      attrs,
      waitMs: busyWaitMs,
      pauseMs: (attempt) => Math.round((10 << Math.min(attempt, 4)) * (0.5 + Math.random())),
      signal,
    });
    this.taking = taking.then(
      (c) => {
        if (c.kind === 'claimed') this.held = { key: bodyKey, fence: c.fence };
      },
      () => undefined,
    );
    const body = await taking;
    await this.taking;
    if (body.kind === 'busy') return 'busy';
    if (body.kind === 'claimed') return 'claimed';
    // Done under this id: this delivery was processed. Under another id: a replay.
    if (body.item.deliveryId !== undefined && body.item.deliveryId !== d.deliveryId) return 'replay';
    // The id's mark may have been lost with a crash after the body's: write it again, so the sweep sees it.
    const [, idMark] = this.marks();
    await finishTogether(this.ctx.store, idMark ? [idMark] : []).catch((e: unknown) =>
      this.log.warn('could not mark a processed delivery done', { error: e }),
    );
    return 'duplicate';
  }

  /**
   * Marks the body and the id done (one call, shared with other marks of the same turn): the
   * delivery's events are queued. `also`: rows written in the same call (the queued events' history).
   */
  async finish(also: readonly Item[] = []): Promise<void> {
    this.held = undefined;
    await finishTogether(this.ctx.store, [...this.marks(), ...also]);
  }

  /** Gives back the claim if this attempt still holds it (never one taken over or marked done since). */
  async release(): Promise<void> {
    await this.taking;
    const mine = this.held;
    this.held = undefined;
    if (!mine) return;
    await releaseOnce(this.ctx.store, this.ctx.clock, mine).catch((e: unknown) => {
      this.log.error('could not release delivery claim; it lapses with its lease', { error: e });
      return false;
    });
  }

  private marks(): Item[] {
    return this.marked.map((d) => doneMark(this.ctx.clock, d.key, deliveryClaimTtlSeconds, d.attrs));
  }
}
