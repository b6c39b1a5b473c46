import type { OAuthProviderDef } from '../../../oauth/providers';

/**
 * The code host's OAuth scopes (an OAuth app cannot narrow to repositories; fine-grained
 * tokens via `POST /connections` can): `repo` (repositories, issues, pull requests, contents,
 * statuses, collaborators, discussions), `workflow` (workflow files and runs), `gist`,
 * `admin:repo_hook` / `admin:org_hook` (the webhooks the triggers create), `read:org`
 * (organization membership and org-level targets), `read:user` (the account's identity),
 * `project` (Projects v2 items: update_project_v2_item_status, project triggers).
 */
export const githubScopes = 'repo workflow gist admin:repo_hook admin:org_hook read:org read:user project';

/** The code host's OAuth app: its part `oauth` of the provider contract. */
export const githubOAuth: OAuthProviderDef = {
  id: 'github',
  displayName: 'GitHub',
  clientIdEnv: 'GITHUB_CLIENT_ID',
  clientSecretEnv: 'GITHUB_CLIENT_SECRET',
  clientId: (c) => c.github.clientId,
  scopes: () => githubScopes,
  takesExtraScopes: false,
  ownApiBase: true,
  authorizeEndpoint: (c) => `${c.github.oauthUrl}/login/oauth/authorize`,
  authorizeExtras: {},
  tokenEndpoint: (c) => `${c.github.oauthUrl}/login/oauth/access_token`,
  apiBase: (c) => c.github.apiUrl,
  tokenBody: 'form',
  reconnectNeedsAccountId: true,
  stableAccountId: true,
};
