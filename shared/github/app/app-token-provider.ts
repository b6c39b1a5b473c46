import { AppError } from '../../domain/errors';
import type { Connection } from '../../domain/model';
import type { TokenCredential, TokenOptions, TokenProvider } from '../../ports/token-provider';
import type { InstallationTokens } from './installation-tokens';

/**
 * Tokens of every connection, `github_app` ones included: such a connection acts with its
 * installation's token (repository work: steps, hooks, polling, the sweep), and with the
 * user's own token (held and refreshed by `user`, as OAuth tokens are) only when asked for
 * `actingAs: 'user'`. Other connections are `user`'s alone.
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
    if (connection.authMethod !== 'github_app' || options?.actingAs === 'user') {
      if (!this.user.credential) throw new AppError('internal', 'The token provider cannot say which origin a token belongs to');
      return this.user.credential(connection, options);
    }
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
    const refused = options?.forceRefresh === true ? options.rejected : undefined;
    const t = await this.installations.token(installation.id, refused !== undefined ? { rejected: refused } : {});
    return { accessToken: t.token, origin: t.origin };
  }
}
