import type { AppContext } from '../ports/app-context';
import { AppError } from '../domain/errors';
import { operatorOriginRefusal } from '../http/guarded-fetch';
import type { Connection } from '../domain/model';
import { assertTokenOrigin, boundOrigin, connectionApiBase } from '../oauth/token-origin';

export interface CodeHostAccess {
  baseUrl: string;
  token: string;
}

/**
 * The REST base (a connection's own for enterprise servers) and the token to call it with:
 * the one place where a code-host token meets the URL it is sent to. Every code-host
 * request (Octokit steps, `github.api_call`, webhook registration, polling, the sweep)
 * gets its token here, and a token is refused (`token_origin_mismatch`, before any I/O)
 * for any origin but the one it was issued for.
 */
export async function codeHostAccess(ctx: Pick<AppContext, 'config' | 'tokens'>, connection: Connection): Promise<CodeHostAccess> {
  const baseUrl = connectionApiBase(connection, ctx.config);
  // Checked at every use, not only at creation: AGENT_RUNTIME_URL or PUBLIC_URL may be set later.
  const refusal = operatorOriginRefusal(ctx.config, baseUrl);
  if (refusal) throw refusal;
  if (!ctx.tokens.credential)
    throw new AppError('internal', 'The token provider cannot say which origin a token belongs to; nothing is sent');
  const credential = await ctx.tokens.credential(connection);
  assertTokenOrigin(boundOrigin(credential, connection, ctx.config), baseUrl, connection.id);
  return { baseUrl, token: credential.accessToken };
}
