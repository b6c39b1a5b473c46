import { githubProvider } from '../providers/github/subscriptions/provider';
import { contentSnareProvider } from '../providers/contentsnare/subscriptions/provider';
import type { Providers } from '../ports/provider-contract';

/**
 * The providers the product has: the one list the core is given them by (`AppContext.providers`).
 * A new provider is a room under `shared/providers/<id>/` and one line here.
 */
export const providerRegistry: Providers = {
  github: githubProvider,
  contentsnare: contentSnareProvider,
};
