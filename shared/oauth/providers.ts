import type { AppContext } from '../ports/app-context';
import type { Config } from '../config/config';
import { AppError } from '../domain/errors';
import { providers, type Provider } from '../domain/model';

/**
 * What differs between the two OAuth providers, in one table (no if-chains elsewhere).
 *
 * Code host scopes (an OAuth app cannot narrow to repositories; fine-grained tokens via
 * `POST /connections` can): `repo` (repositories, issues, pull requests, contents,
 * statuses, collaborators, discussions), `workflow` (workflow files and runs), `gist`,
 * `admin:repo_hook` / `admin:org_hook` (the webhooks the triggers create), `read:org`
 * (organization membership and org-level targets), `read:user` (the account's identity),
 * `project` (Projects v2 items: update_project_v2_item_status, project triggers).
 */
export interface OAuthProviderDef {
  id: Provider;
  displayName: string;
  clientIdEnv: string;
  clientSecretEnv: string;
  clientId(config: Config): string | undefined;
  scopes(config: Config): string;
  /** Whether an authorize call may ask for extra scopes (the collection service's webhook scopes). */
  takesExtraScopes: boolean;
  /**
   * Whether a connection may name its own API server (an enterprise code host): its requests
   * then go to the connection's base, not to the provider's API.
   */
  ownApiBase: boolean;
  authorizeEndpoint(config: Config): string;
  /** Extra authorize query parameters (the collection service wants `response_type=code` first). */
  authorizeExtras: Record<string, string>;
  tokenEndpoint(config: Config): string;
  /** The API its tokens are issued for: their origin is the only one they are ever sent to. */
  apiBase(config: Config): string;
  /** Body encoding of the token call: the code host takes a form, the collection service JSON. */
  tokenBody: 'form' | 'json';
  /** Whether access tokens may expire and are then refreshed (refresh_token grant). */
  refreshable: boolean;
  /**
   * A reconnect must prove the same account: both the connection and the new token name an
   * account id, and they are equal; a missing id on either side is a refusal, not a skip.
   */
  reconnectNeedsAccountId: boolean;
  /**
   * Whether the provider names the account behind a token with a stable identifier a
   * reconnect can be checked against. Without one, a reconnect is never refused for who
   * authorised it (a name, or another user of the same account, proves nothing either way).
   */
  stableAccountId: boolean;
  /** Lifetime assumed when the token answer has no `expires_in` (seconds). */
  defaultExpiresInSeconds?: number;
}

export const githubScopes = 'repo workflow gist admin:repo_hook admin:org_hook read:org read:user project';

export const oauthProviders: Record<Provider, OAuthProviderDef> = {
  github: {
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
    // GitHub Apps' user tokens (and OAuth apps that opted in) expire after 8 hours and come
    // with a refresh token; tokens answered without `expires_in` never expire and are never refreshed.
    refreshable: true,
    reconnectNeedsAccountId: true,
    stableAccountId: true,
  },
  contentsnare: {
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
    refreshable: true,
    // GET /me describes the user who authorised (documented with `full_name` only), not the
    // account: another admin of the same account, or a renamed user, is the same account.
    reconnectNeedsAccountId: false,
    stableAccountId: false,
    // Its access tokens last about two hours.
    defaultExpiresInSeconds: 2 * 60 * 60,
  },
};

/** `:provider` path segment -> provider, or 404 naming the ones that exist. */
export function parseProvider(value: string | undefined): Provider {
  if (value !== undefined && (providers as readonly string[]).includes(value)) return value as Provider;
  throw new AppError('not_found', `Unknown OAuth provider "${value ?? ''}"; use one of: ${providers.join(', ')}`);
}

/** The exact registered redirect URI, used on both the authorize and the token call. */
export function redirectUriFor(config: Config, provider: Provider): string {
  return `${config.publicUrl}/oauth/${provider}/callback`;
}

export interface ClientCredentials {
  clientId: string;
  clientSecret: string;
}

/** Client id and secret, or AppError `not_configured` naming the variables to set. */
export async function clientCredentials(
  ctx: Pick<AppContext, 'config' | 'oauthClientSecret'>,
  provider: Provider,
): Promise<ClientCredentials> {
  const def = oauthProviders[provider];
  const clientId = def.clientId(ctx.config);
  const clientSecret = await ctx.oauthClientSecret(provider);
  const missing = [clientId ? undefined : def.clientIdEnv, clientSecret ? undefined : def.clientSecretEnv].filter(
    (v): v is string => v !== undefined,
  );
  if (!clientId || !clientSecret) {
    throw new AppError('not_configured', `${def.displayName} OAuth is not configured: set ${missing.join(' and ')}`, {
      provider,
      missing,
    });
  }
  return { clientId, clientSecret };
}
