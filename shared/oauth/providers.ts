import type { AppContext } from '../ports/app-context';
import type { Config } from '../config/config';
import { AppError } from '../domain/errors';
import { providers, type Provider } from '../domain/model';

/**
 * What differs between OAuth providers, as data (no if-chains elsewhere): each provider's
 * room holds its own (`shared/providers/<id>/oauth/definition.ts`), and the core reads it as
 * the contract's `oauth` part.
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

declare module '../ports/provider-contract' {
  interface ProviderContract {
    /** The provider's OAuth client: endpoints, scopes, token rules (shared/oauth/providers.ts). */
    oauth: OAuthProviderDef;
  }
}

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
  ctx: Pick<AppContext, 'config' | 'oauthClientSecret' | 'providers'>,
  provider: Provider,
): Promise<ClientCredentials> {
  const def = ctx.providers[provider].oauth;
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
