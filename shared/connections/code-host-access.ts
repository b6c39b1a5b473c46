import type { AppContext } from '../app/context';
import type { Connection } from '../domain/model';

export interface CodeHostAccess {
  baseUrl: string;
  token: string;
}

/** The REST base (a connection's own for enterprise servers) and the token to call it with. */
export async function codeHostAccess(ctx: Pick<AppContext, 'config' | 'tokens'>, connection: Connection): Promise<CodeHostAccess> {
  const baseUrl = (connection.apiBaseUrl ?? ctx.config.github.apiUrl).replace(/\/+$/, '');
  return { baseUrl, token: await ctx.tokens.accessToken(connection) };
}
