import type { Connection } from '../domain/model';
import type { TokenCredential, TokenProvider } from '../ports/token-provider';

/**
 * A token provider for one polling round: each connection's credential is read once and
 * shared by its sources' reads (thousands of sources, a few seconds apart). A forced refresh
 * and a failed read go to the provider underneath every time.
 */
export function roundTokens(tokens: TokenProvider): TokenProvider {
  const held = new Map<string, Promise<TokenCredential>>();
  const credential = tokens.credential?.bind(tokens);
  return {
    accessToken: (connection, options) => tokens.accessToken(connection, options),
    ...(credential
      ? {
          credential(connection: Connection, options?: { forceRefresh?: boolean }) {
            if (options?.forceRefresh) return credential(connection, options);
            let p = held.get(connection.id);
            if (!p) {
              p = credential(connection);
              held.set(connection.id, p);
              p.catch(() => held.delete(connection.id));
            }
            return p;
          },
        }
      : {}),
  };
}
