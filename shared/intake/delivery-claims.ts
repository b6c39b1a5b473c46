import { createHash } from 'node:crypto';
import type { AppContext } from '../ports/app-context';
import type { Logger } from '../observability/logger';
import type { Key } from '../ports';
import { claimOnce, finishOnce, releaseOnce, type HeldClaim, type OnceClaim } from '../store/once-claim';
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

/** What the claims say about this attempt. */
export type DeliveryClaimOutcome =
  /** This attempt holds both claims: it processes the delivery. */
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

function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms).unref());
}

/**
 * The two claims of one delivery attempt: the delivery id's (what the code host's and the
 * sweep's redeliveries carry) and the signed body's (what a replay under a new id cannot
 * change). A GitHub redelivery carries the same id and the same bytes, so it meets both.
 * Each is a once-claim (shared/store/once-claim.ts): `in_progress` with a lease, `done`
 * only after the enqueue.
 */
export class DeliveryClaims {
  private readonly held: HeldClaim[] = [];
  private done: Array<{ key: Key; attrs: Record<string, unknown> }> = [];

  constructor(
    private readonly ctx: Pick<AppContext, 'store' | 'clock'>,
    private readonly log: Logger,
  ) {}

  /**
   * Takes both claims (at once: one round trip). When another attempt holds one, gives
   * back what it took and tries again for up to `busyWaitMs` (real time) with a growing
   * pause, since most attempts finish in milliseconds (ten copies at once: one fan-out,
   * all answered 2xx); `stop` ends the wait early (the deadline passed).
   */
  async take(d: DeliveryIdentity, busyWaitMs: number, stop: () => boolean): Promise<DeliveryClaimOutcome> {
    const attrs = { endpointId: d.endpointId, deliveryId: d.deliveryId, event: d.event };
    const idKey = keys.deliveryClaim(d.endpointId, d.deliveryId);
    const bodyKey = keys.deliveryBodyClaim(d.endpointId, createHash('sha256').update(d.body).digest('hex'));
    this.done = [
      { key: bodyKey, attrs },
      { key: idKey, attrs },
    ];
    const giveUpAt = Date.now() + busyWaitMs;
    for (let attempt = 0; ; attempt++) {
      const [byId, byBody] = await Promise.allSettled([this.claim(idKey), this.claim(bodyKey)]);
      if (byId.status === 'rejected') throw byId.reason;
      if (byBody.status === 'rejected') throw byBody.reason;
      const id = byId.value;
      const body = byBody.value;
      if (id.kind === 'claimed' && body.kind === 'claimed') return 'claimed';
      if (id.kind === 'done' || body.kind === 'done') {
        // The id done: this delivery was processed. The body done under this id: the same,
        // with the id's mark lost to a crash. Under another id: a replay.
        const same = id.kind === 'done' || body.kind !== 'done' || body.item.deliveryId === d.deliveryId;
        // Complete the marks of a processed delivery (so the sweep sees it); a replay leaves nothing behind.
        const mine = [...this.held];
        this.held.length = 0;
        await Promise.all(
          mine.map((h) =>
            (same
              ? finishOnce(this.ctx.store, this.ctx.clock, h.key, deliveryClaimTtlSeconds, attrs)
              : releaseOnce(this.ctx.store, this.ctx.clock, h)
            ).catch((e: unknown) => {
              this.log.warn('could not settle a delivery claim', { error: e });
            }),
          ),
        );
        return same ? 'duplicate' : 'replay';
      }
      await this.release();
      const left = giveUpAt - Date.now();
      if (stop() || left <= 0) return 'busy';
      // Jittered, so two attempts that each took one of the two claims do not meet again.
      await sleep(Math.min(left, Math.round((10 << Math.min(attempt, 4)) * (0.5 + Math.random()))));
    }
  }

  /** Marks both claims done: the delivery's events are queued. */
  async finish(): Promise<void> {
    this.held.length = 0;
    await Promise.all(this.done.map((d) => finishOnce(this.ctx.store, this.ctx.clock, d.key, deliveryClaimTtlSeconds, d.attrs)));
  }

  /** Gives back the claims this attempt still holds (never one taken over or marked done since). */
  async release(): Promise<void> {
    const mine = this.held.splice(0);
    await Promise.all(
      mine.map((h) =>
        releaseOnce(this.ctx.store, this.ctx.clock, h).catch((e: unknown) => {
          this.log.error('could not release delivery claim; it lapses with its lease', { error: e });
          return false;
        }),
      ),
    );
  }

  private async claim(key: Key): Promise<OnceClaim> {
    const result = await claimOnce(this.ctx.store, this.ctx.clock, key, deliveryLeaseSeconds, this.done.find((d) => d.key === key)?.attrs);
    if (result.kind === 'claimed') this.held.push({ key, fence: result.fence });
    return result;
  }
}
