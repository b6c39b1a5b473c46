import type { Logger } from '../../../observability/logger';
import type { AppContext } from '../../../ports/app-context';
import { notClaimed } from '../../../intake/deliver-stage';
import { finishWith, giveBack } from '../../../store/with-claim';
import { withDeliveryClaim } from '../../../intake/delivery-claims';
import type { DeliveryAnswer, DeliveryHeaders, OwnEventDelivery } from '../../../intake/intake-source';

/**
 * Applies an App lifecycle delivery at most once, under the same claim as every other
 * delivery (delivery-claims.ts, keyed on the signed body under its route id): a redelivery, or
 * the same signed body replayed under a new delivery id, is answered as a duplicate and
 * changes nothing. The claim is marked done once `apply` answered below 500; an answer of 5xx
 * or a throw gives it back, so the code host's (or the sweep's) redelivery is applied.
 */
export async function oncePerDelivery(
  ctx: Pick<AppContext, 'store' | 'clock' | 'sleep' | 'metrics'>,
  log: Logger,
  d: { routeId: string; headers: DeliveryHeaders; delivery: OwnEventDelivery },
  apply: () => Promise<DeliveryAnswer>,
): Promise<DeliveryAnswer> {
  const identity = { routeId: d.routeId, deliveryId: d.headers.deliveryId, event: d.headers.event, body: d.delivery.body };
  const run = await withDeliveryClaim(
    ctx,
    log,
    identity,
    {
      busyWaitMs: d.delivery.busyWaitMs,
      signal: d.delivery.signal,
      onFinishFailed: (e) => log.error('could not mark the App event done; its claim lapses with its lease', { error: e }),
    },
    async () => {
      const answer = await apply();
      return answer.status >= 500 ? giveBack(answer) : finishWith(answer);
    },
  );
  if (run.kind === 'ran') return run.value;
  // Not given back on abort (once claimed, the event is applied whole): not run means not claimed.
  return notClaimed(ctx, log, run.kind === 'not_claimed' ? run.outcome : 'busy');
}
