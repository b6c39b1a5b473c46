import type { Connection } from '../domain/model';

/** A token with the origin it was issued for (absent on tokens stored before origins were kept). */
export interface TokenCredential {
  accessToken: string;
  origin?: string;
}

/**
 * Gives the access token of a connection, refreshing it first where the provider's tokens
 * expire (the collection service's OAuth tokens, the code host's expiring user tokens;
 * single-flight across workers). Throws AppError `reconnect_required` when the connection
 * can no longer be used.
 */
export interface TokenProvider {
  accessToken(connection: Connection, options?: { forceRefresh?: boolean }): Promise<string>;
  /**
   * The token with its origin: what code-host requests need (code-host-access.ts), which
   * send nothing through a provider that lacks it. Both real providers have it; it is
   * optional only so that test doubles of the collection service's token need not.
   */
  credential?(connection: Connection, options?: { forceRefresh?: boolean }): Promise<TokenCredential>;
}
