import { githubProvider } from '../providers/github/subscriptions/provider';
import { contentSnareProvider } from '../providers/contentsnare/subscriptions/provider';
import { triggerCatalogOf, type Providers } from '../ports/provider-contract';
import type { TriggerCatalog } from '../domain/trigger-catalog';

/**
 * The providers the product has: the one list the core is given them by (`AppContext.providers`).
 * A new provider is a room under `shared/providers/<id>/` and one line here.
 */
export const providerRegistry: Providers = {
  github: githubProvider,
  contentsnare: contentSnareProvider,
};

/** The trigger catalog of these providers, for the programs that hold no context (the CLIs, the guides). */
export const triggerCatalog: TriggerCatalog = triggerCatalogOf(providerRegistry);
