/** One attempt in a hook's delivery log, as the sweep reads it. */
export interface HookDelivery {
  id: number;
  guid: string;
  delivered_at?: string | undefined;
  redelivery?: boolean | undefined;
  status_code?: number | undefined;
  event?: string | undefined;
  /** The App's webhook: the installation the delivery was for (none for the App's own events). */
  installation_id?: number | null | undefined;
}

/** What the provider said is left of the token's hourly budget, when it said. */
export interface RateBudget {
  remaining: number;
  /** Epoch seconds when the budget is whole again. */
  resetAt?: number;
}

/** One page of a hook's deliveries, newest first. */
export interface DeliveryPage {
  deliveries: HookDelivery[];
  /** The cursor of the next (older) page; none on the last page. */
  next?: string;
  rate?: RateBudget;
}

/** The provider refused a cursor it gave out (too old, or from another listing): start again from the newest page. */
export class CursorRefused extends Error {}

/**
 * One webhook the sweep walks: a hook of ours on a repository or organization, or the GitHub
 * App's webhook. Its provider binds the reads to the hook and the credential they are made with.
 */
export interface SweptHook {
  /** Its sweep-state row and its name in logs: the endpoint id, or `app`. */
  id: string;
  /** One page of its deliveries (newest first), from `cursor` when given; a stale cursor throws `CursorRefused`. */
  page(cursor?: string): Promise<DeliveryPage>;
  /** Asks for one delivery again; answers what is left of the rate budget. */
  redeliver(deliveryId: number): Promise<RateBudget | undefined>;
  /**
   * The route id the intake claimed a delivery under (keys.deliveryClaim): the endpoint id, or
   * the App's installation of the delivery; undefined when the intake claims no such delivery.
   */
  routeId(d: HookDelivery): string | undefined;
}
