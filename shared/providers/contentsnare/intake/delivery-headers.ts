import type { DeliveryHeaders, Verdict } from '../../../intake/intake-source';

/**
 * The collection service's deliveries carry no header the intake requires: no header names the
 * event or the delivery (the body's `event_name` does, and the claim names the change), and
 * the URL's token, not a signature, authenticates them.
 */
export function snareHeaders(): Verdict<DeliveryHeaders> {
  return { ok: true, value: { event: 'contentsnare', deliveryId: '-' } };
}
