import type { AppContext } from '../ports/app-context';
import type { Providers } from '../ports/provider-contract';
import type { IntakeRequest, IntakeSource } from './intake-source';

/**
 * One webhook route of a provider: the route of the intake's table it answers (by its name
 * there), how the route's path names the delivery's route, and the source its deliveries
 * run through. The core binds each route of its table to the provider that declares it.
 */
export interface WebhookIntake {
  /** The route's name in the intake's route table (`hookDelivery`, `appDelivery`, `snareDelivery`). */
  route: string;
  /** The request's path id (and token) from the route's path parameters. */
  path(params: Readonly<Record<string, string | undefined>>): Pick<IntakeRequest, 'pathId' | 'pathToken'>;
  /** The source, built for the context its verifier and router close over. */
  source(ctx: AppContext): IntakeSource<unknown>;
}

/** What the intake takes from a provider: its webhook routes (none for a provider that only polls). */
export interface ProviderIntake {
  webhooks: readonly WebhookIntake[];
}

declare module '../ports/provider-contract' {
  interface ProviderContract {
    intake: ProviderIntake;
  }
}

/** The provider webhook that answers `route`; a route no provider declares is a wiring fault, found at start. */
export function webhookFor(providers: Providers, route: string): WebhookIntake {
  const found = Object.values(providers)
    .flatMap((p) => p.intake.webhooks)
    .find((w) => w.route === route);
  if (!found) throw new Error(`no provider answers the webhook route ${route}`);
  return found;
}
