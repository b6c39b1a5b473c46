import { clientCredentials } from '../../../oauth/providers';
import type { RefreshRules } from '../../../oauth/refreshing-token-provider';
import { appClientCredentials } from '../app/app-credentials';

/**
 * The code host's user tokens of GitHub Apps (and of OAuth apps that opted in) expire after 8
 * hours and come with a refresh token; tokens answered without `expires_in` never expire and
 * are never refreshed. A token the user made is read as it is. A GitHub App connection's user
 * token is an OAuth token of the App: refreshed the same way, with the App's own client.
 */
export const githubRefresh: RefreshRules = {
  refreshes: (connection) => connection.authMethod !== 'token',
  client: (deps, connection) => (connection.authMethod === 'github_app' ? appClientCredentials(deps) : clientCredentials(deps, 'github')),
};
