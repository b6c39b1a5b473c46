import type { Connection } from '../domain/model';

/** A token with the origin it was issued for (absent on tokens stored before origins were kept). */
export interface TokenCredential {
  accessToken: string;
  origin?: string;
}

export interface TokenOptions {
  /**
   * The provider answered 401 to the caller's token: read the stored token past any cache
   * (another worker may have refreshed or replaced it) and, where tokens expire and the
   * stored one is still the refused one, refresh it.
   */
  forceRefresh?: boolean;
  /**
   * The token that was refused. A stored token that differs from it is newer and is given
   * as it is: refreshing again would end a token another call has just begun to use.
   */
  rejected?: string;
  /**
   * `user`: on a `github_app` connection, the user's own token (what an installation token
   * cannot do: gists, the user's stars and repositories); otherwise the installation's token
   * when the connection's reach is `installation`, the user's own token when it is `user`.
   * Other connections have one token and ignore it.
   */
  actingAs?: 'user';
}

/**
 * Gives the access token of a connection, refreshing it first where the provider's tokens
 * expire (the collection service's OAuth tokens, the code host's expiring user tokens;
 * single-flight across workers). Throws AppError `reconnect_required` when the connection
 * can no longer be used.
 */
export interface TokenProvider {
  accessToken(connection: Connection, options?: TokenOptions): Promise<string>;
  /**
   * The token with its origin: what code-host requests need (code-host-access.ts), which
   * send nothing through a provider that lacks it. Both real providers have it; it is
   * optional only so that test doubles of the collection service's token need not.
   */
  credential?(connection: Connection, options?: TokenOptions): Promise<TokenCredential>;
}
