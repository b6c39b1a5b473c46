import type { Connection } from '../domain/model';
import type { TokenCredential, TokenOptions, TokenProvider } from '../ports/token-provider';

/**
 * A token provider for one polling round: each connection's credential is read once and
 * shared by its sources' reads (thousands of sources, a few seconds apart). A forced refresh
 * goes to the provider underneath and its answer serves the rest of the round; a failed read
 * is not kept.
 */
export function roundTokens(tokens: TokenProvider): TokenProvider {
  const held = new Map<string, Promise<TokenCredential>>();
  const credential = tokens.credential?.bind(tokens);
  return {
    accessToken: (connection, options) => tokens.accessToken(connection, options),
    ...(credential
      ? {
          credential(connection: Connection, options?: TokenOptions) {
            let p = held.get(connection.id);
            // A refused token is replaced for the rest of the round, not refused again source by source.
            if (!p || options?.forceRefresh) {
              p = credential(connection, options);
              held.set(connection.id, p);
              p.catch(() => held.delete(connection.id));
            }
            return p;
          },
        }
      : {}),
  };
}
