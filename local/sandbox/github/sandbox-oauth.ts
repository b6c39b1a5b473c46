import { SimulatedOAuthServer, type OAuthServerState } from '../simulated-oauth';
import type { SimulatedGitHub, SimulatedUser } from './simulated-github';

export interface SandboxOAuthApp {
  server: SimulatedOAuthServer;
  /** The GITHUB_CLIENT_* settings of the simulated OAuth app, unless the environment names an OAuth app of its own. */
  environment(env: Record<string, string | undefined>): Record<string, string>;
}

/**
 * The simulated code host plays an OAuth app too (`npm run dev`), so that the OAuth connect
 * flow can be tried: its authorize page (`/login/oauth/authorize`) approves at once as the demo
 * user, and the tokens its token endpoint (`/login/oauth/access_token`) issues act as that user
 * on the simulated REST routes. They never expire, as an OAuth app's tokens by default; `kept`
 * (the client and tokens of an earlier run) keeps a connection made through it working.
 */
export function playGitHubOAuthApp(github: SimulatedGitHub, user: SimulatedUser, kept?: OAuthServerState): SandboxOAuthApp {
  const server = new SimulatedOAuthServer(
    {
      authorizePaths: ['/login/oauth/authorize'],
      tokenPath: '/login/oauth/access_token',
      tokenPrefix: 'gho_',
      approveAs: user.login,
      onToken: (token) => github.users.set(token, user),
    },
    kept,
  );
  for (const token of server.tokens.keys()) github.users.set(token, user);
  const before = github.before;
  github.before = (req) =>
    server.handle({
      method: req.method,
      path: req.path,
      query: req.query,
      body: req.body,
      contentType: String(req.headers['content-type'] ?? ''),
    }) ?? before?.(req);
  return {
    server,
    environment(env): Record<string, string> {
      if (env.GITHUB_CLIENT_ID) return {};
      return { GITHUB_OAUTH_URL: github.url, GITHUB_CLIENT_ID: server.clientId, GITHUB_CLIENT_SECRET: server.clientSecret };
    },
  };
}
