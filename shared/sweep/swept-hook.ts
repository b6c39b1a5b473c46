import type { HookDelivery } from './hook-deliveries';

/** One webhook the sweep walks: a hook of ours on a repository or organization, or the GitHub App's webhook. */
export interface SweptHook {
  /** Its sweep-state row and its name in logs: the endpoint id, or `app`. */
  id: string;
  /** `.../hooks/{hook_id}` or `/app/hook` (hook-deliveries.ts). */
  base: string;
  /**
   * The route id the intake claimed a delivery under (keys.deliveryClaim): the endpoint id, or
   * the App's installation of the delivery; undefined when the intake claims no such delivery.
   */
  routeId(d: HookDelivery): string | undefined;
}
