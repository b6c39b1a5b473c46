import type { OAuthProviderDef } from '../../../oauth/providers';

/** The collection service's OAuth client: its part `oauth` of the provider contract. */
export const contentSnareOAuth: OAuthProviderDef = {
  id: 'contentsnare',
  displayName: 'Content Snare',
  clientIdEnv: 'CONTENTSNARE_CLIENT_ID',
  clientSecretEnv: 'CONTENTSNARE_CLIENT_SECRET',
  clientId: (c) => c.contentsnare.clientId,
  scopes: (c) => c.contentsnare.scopes,
  takesExtraScopes: true,
  ownApiBase: false,
  authorizeEndpoint: (c) => `${c.contentsnare.oauthUrl}${c.contentsnare.authorizePath}`,
  authorizeExtras: { response_type: 'code' },
  tokenEndpoint: (c) => `${c.contentsnare.oauthUrl}/oauth/token`,
  apiBase: (c) => c.contentsnare.apiUrl,
  tokenBody: 'json',
  // GET /me describes the user who authorised (documented with `full_name` only), not the
  // account: another admin of the same account, or a renamed user, is the same account.
  reconnectNeedsAccountId: false,
  stableAccountId: false,
  // Its access tokens last about two hours.
  defaultExpiresInSeconds: 2 * 60 * 60,
};
