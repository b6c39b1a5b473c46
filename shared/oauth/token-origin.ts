import type { Config } from '../config/config';
import { AppError } from '../domain/errors';
import type { Connection, StoredToken } from '../domain/model';
import { oauthProviders } from './providers';

/** `https://ghe.example.com/api/v3` -> `https://ghe.example.com`. */
export function originOf(url: string): string {
  return new URL(url).origin;
}

/** Where the provider's OAuth tokens may be sent: the origin of its API (GITHUB_API_URL, ...). */
export function providerApiOrigin(config: Config, provider: Connection['provider']): string {
  return originOf(oauthProviders[provider].apiBase(config));
}

/** The REST base a code-host connection's requests go to: its own (enterprise) or GITHUB_API_URL. */
export function connectionApiBase(connection: Pick<Connection, 'apiBaseUrl'>, config: Pick<Config, 'github'>): string {
  return (connection.apiBaseUrl ?? config.github.apiUrl).replace(/\/+$/, '');
}

/**
 * The origin a stored token is bound to. Tokens stored before origins were recorded carry
 * none; they are bound by how they were made, never by where the connection points now
 * when that could differ from where the token came from:
 * - OAuth tokens: the provider's API origin (the only place an OAuth app issues them for).
 *   A legacy OAuth token on a connection with another `apiBaseUrl` (what a reconnect
 *   could once leave behind) is therefore refused, and must be connected anew.
 * - user-made tokens: the connection's base, where the token was verified when it was
 *   created; `apiBaseUrl` cannot be changed afterwards (PATCH refuses it).
 */
export function boundOrigin(token: Pick<StoredToken, 'origin'>, connection: Connection, config: Config): string {
  if (token.origin !== undefined) return token.origin;
  if (connection.authMethod === 'oauth') return providerApiOrigin(config, connection.provider);
  return originOf(connectionApiBase(connection, config));
}

/** A token is only ever sent to its own origin: anything else is refused before any I/O. */
export function assertTokenOrigin(tokenOrigin: string, baseUrl: string, connectionId: string): void {
  const target = originOf(baseUrl);
  if (target === tokenOrigin) return;
  throw new AppError(
    'token_origin_mismatch',
    `The token of connection ${connectionId} was issued for ${tokenOrigin} and is not sent to ${target}; connect the account again for that server`,
    { tokenOrigin, requestOrigin: target },
  );
}

/** The origin a connection's requests go to: its code-host base, or the collection service's API. */
export function connectionTargetOrigin(connection: Pick<Connection, 'provider' | 'apiBaseUrl'>, config: Config): string {
  return oauthProviders[connection.provider].ownApiBase
    ? originOf(connectionApiBase(connection, config))
    : providerApiOrigin(config, connection.provider);
}
