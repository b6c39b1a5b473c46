import type { Connection } from '../domain/model';

/**
 * Gives the access token of a connection, refreshing it first where the provider's tokens
 * expire (the collection service's OAuth tokens, single-flight across workers).
 * Throws AppError `reconnect_required` when the connection can no longer be used.
 */
export interface TokenProvider {
  accessToken(connection: Connection, options?: { forceRefresh?: boolean }): Promise<string>;
}
