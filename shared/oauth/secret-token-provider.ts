import { AppError } from '../domain/errors';
import type { Connection } from '../domain/model';
import type { SecretStore } from '../ports';
import { readStoredToken } from '../store/stored-token';
import type { TokenCredential, TokenOptions, TokenProvider } from '../ports/token-provider';

/** Tokens that do not expire (code-host tokens): read from the secret store as they are. */
export class SecretTokenProvider implements TokenProvider {
  constructor(private readonly secrets: SecretStore) {}

  async accessToken(connection: Connection, options?: TokenOptions): Promise<string> {
    return (await this.credential(connection, options)).accessToken;
  }

  /** After a 401 (`forceRefresh`) the token is read past any cache: it may have been replaced elsewhere. */
  async credential(connection: Connection, options?: TokenOptions): Promise<TokenCredential> {
    if (connection.status === 'reconnect_required') {
      throw new AppError(
        'reconnect_required',
        `Connection ${connection.id} must be reconnected${connection.statusReason ? `: ${connection.statusReason}` : ''}`,
      );
    }
    const token = await readStoredToken(this.secrets, connection, options?.forceRefresh ? { fresh: true } : undefined);
    if (!token) throw new AppError('reconnect_required', `Connection ${connection.id} has no stored token; reconnect it`);
    return credentialOf(token);
  }
}

/** The part of a stored token that leaves the secret store: never the refresh token. */
export function credentialOf(token: { accessToken: string; origin?: string }): TokenCredential {
  return token.origin === undefined ? { accessToken: token.accessToken } : { accessToken: token.accessToken, origin: token.origin };
}
