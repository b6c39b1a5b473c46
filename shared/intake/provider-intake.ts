import type { AppContext } from '../ports/app-context';
import type { DeliveryHeaders, IntakeRequest, IntakeSource, Verdict } from './intake-source';

/**
 * One webhook route of a provider: the route of the intake's table it answers (by its name
 * there), how the route's path names the delivery's route, its required headers, and the
 * source its deliveries run through. The core binds each route of its table to the provider
 * that declares it. Only the functions that take webhooks are given the routes (the wiring's
 * `providerWebhooks`), and each route's source (its verifier, router and payload mappings) is
 * loaded on the route's first delivery.
 */
export interface WebhookIntake {
  /** The route's name in the intake's route table (`hookDelivery`, `appDelivery`, `snareDelivery`). */
  route: string;
  /** The request's path id (and token) from the route's path parameters. */
  path(params: Readonly<Record<string, string | undefined>>): Pick<IntakeRequest, 'pathId' | 'pathToken'>;
  /** The required headers, checked before the body is read (the source's verifier checks them with the same function). */
  headers(raw: Record<string, string | undefined>): Verdict<DeliveryHeaders>;
  /** The source, loaded on first use and built for the context its verifier and router close over. */
  source(ctx: AppContext): Promise<IntakeSource<unknown>>;
}

/** A provider's webhook routes (none for a provider that only polls). */
export interface ProviderIntake {
  webhooks: readonly WebhookIntake[];
}

/** The webhook that answers `route`; a route none declares is a wiring fault, found at start. */
export function webhookFor(webhooks: readonly WebhookIntake[], route: string): WebhookIntake {
  const found = webhooks.find((w) => w.route === route);
  if (!found) throw new Error(`no provider answers the webhook route ${route}`);
  return found;
}
