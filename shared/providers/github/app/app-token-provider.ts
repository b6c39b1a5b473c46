import { AppError } from '../../../domain/errors';
import type { Connection } from '../../../domain/model';
import type { TokenCredential, TokenOptions, TokenProvider } from '../../../ports/token-provider';
import type { InstallationTokens } from './installation-tokens';

/**
 * Tokens of every connection, `github_app` ones included. A `github_app` connection with
 * `reach: 'installation'` (its user administers the installation's account) acts with the
 * installation's token, and with the user's own token only when asked for `actingAs: 'user'`
 * (gists, the user's stars). Any other `github_app` connection acts with the user's own token
 * for everything (held and refreshed by `user`, as OAuth tokens are): GitHub grants that token
 * the intersection of what the user and the App may do, so work done for the user stays
 * within the user's reach. Other connections are `user`'s alone.
 */
export class AppAwareTokenProvider implements TokenProvider {
  constructor(
    private readonly user: TokenProvider,
    private readonly installations: InstallationTokens,
  ) {}

  async accessToken(connection: Connection, options?: TokenOptions): Promise<string> {
    return (await this.credential(connection, options)).accessToken;
  }

  async credential(connection: Connection, options?: TokenOptions): Promise<TokenCredential> {
    if (connection.authMethod !== 'github_app' || options?.actingAs === 'user') return this.userCredential(connection, options);
    const installation = connection.installation;
    if (!installation) throw new AppError('internal', `Connection ${connection.id} is a GitHub App connection without an installation`);
    if (connection.status === 'revoked') {
      throw new AppError(
        'reconnect_required',
        `Connection ${connection.id}: the GitHub App installation was removed; install the App again`,
      );
    }
    if (connection.status === 'suspended') {
      throw new AppError('forbidden', `Connection ${connection.id}: the GitHub App installation is suspended by its owner`);
    }
    if (connection.reach !== 'installation') return this.userCredential(connection, options);
    const refused = options?.forceRefresh === true ? options.rejected : undefined;
    const t = await this.installations.token(installation.id, refused !== undefined ? { rejected: refused } : {});
    return { accessToken: t.token, origin: t.origin };
  }

  private userCredential(connection: Connection, options?: TokenOptions): Promise<TokenCredential> {
    if (!this.user.credential) throw new AppError('internal', 'The token provider cannot say which origin a token belongs to');
    return this.user.credential(connection, options);
  }
}
