import { clientCredentials } from '../../../oauth/providers';
import type { RefreshRules } from '../../../oauth/refreshing-token-provider';

/** The collection service connects by OAuth only, and its access tokens last about two hours: each is refreshed. */
export const contentSnareRefresh: RefreshRules = {
  refreshes: () => true,
  client: (deps) => clientCredentials(deps, 'contentsnare'),
};
