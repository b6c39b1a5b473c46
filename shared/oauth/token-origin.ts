import type { AppContext } from '../ports/app-context';
import { AppError } from '../domain/errors';
import type { Connection, Provider } from '../domain/model';

/** `https://ghe.example.com/api/v3` -> `https://ghe.example.com`. */
export function originOf(url: string): string {
  return new URL(url).origin;
}

type OriginDeps = Pick<AppContext, 'config' | 'providers'>;

/** Where the provider's OAuth tokens may be sent: the origin of its API (GITHUB_API_URL, ...). */
export function providerApiOrigin(deps: OriginDeps, provider: Provider): string {
  return originOf(deps.providers[provider].oauth.apiBase(deps.config));
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

/**
 * The origin a connection's requests go to: its own API server where its provider allows one
 * (an enterprise code host), else the provider's API.
 */
export function connectionTargetOrigin(deps: OriginDeps, connection: Pick<Connection, 'provider' | 'apiBaseUrl'>): string {
  const def = deps.providers[connection.provider].oauth;
  return def.ownApiBase && connection.apiBaseUrl !== undefined
    ? originOf(connection.apiBaseUrl)
    : providerApiOrigin(deps, connection.provider);
}
