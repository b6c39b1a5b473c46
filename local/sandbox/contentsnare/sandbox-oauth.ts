import { SimulatedOAuthServer, type OAuthServerState } from '../simulated-oauth';

/**
 * The simulated collection service's OAuth pages (`npm run dev`), as its reference describes
 * them: the authorize page (`/oauth/authorization`, and `/oauth/authorize` which one client
 * uses) approves at once as the demo account, and `/oauth/token` issues access tokens that last
 * two hours with a refresh token that is replaced at each refresh. `accept` makes the partner
 * API take a new token (and drop the one it replaces).
 */
export function snareOAuth(
  approveAs: string,
  accept: (token: string, replaced?: string) => void,
  kept?: OAuthServerState,
): SimulatedOAuthServer {
  return new SimulatedOAuthServer(
    {
      authorizePaths: ['/oauth/authorization', '/oauth/authorize'],
      tokenPath: '/oauth/token',
      tokenPrefix: 'cs_',
      expiresInSeconds: 2 * 60 * 60,
      approveAs,
      onToken: (token, _login, replaced) => accept(token, replaced),
    },
    kept,
  );
}

/** The CONTENTSNARE_* OAuth settings of the simulated service, unless the environment names a client of its own. */
export function snareOAuthEnvironment(
  server: SimulatedOAuthServer,
  url: string,
  env: Record<string, string | undefined>,
): Record<string, string> {
  if (env.CONTENTSNARE_CLIENT_ID) return {};
  return { CONTENTSNARE_OAUTH_URL: url, CONTENTSNARE_CLIENT_ID: server.clientId, CONTENTSNARE_CLIENT_SECRET: server.clientSecret };
}
