import type { AppContext } from '../../ports/app-context';
import { AppError } from '../../domain/errors';
import { operatorOriginRefusal } from '../../http/guarded-fetch';
import type { Connection } from '../../domain/model';
import type { TokenOptions } from '../../ports/token-provider';
import { assertTokenOrigin } from '../../oauth/token-origin';
import { boundOrigin, githubApiBase } from './github-base';

export interface CodeHostAccess {
  baseUrl: string;
  /** The token to send; replaced in place when `renew` finds a newer one. */
  token: string;
  /**
   * After the code host answered 401 to `rejected`: the token to send once more (re-read past
   * any cache, or refreshed where it expires), or undefined when there is none newer.
   */
  renew?(rejected: string): Promise<string | undefined>;
  /**
   * `github_app` connections: the access that carries the user's own token, for requests an
   * installation token cannot make (`actsAsUser`); read on first use only.
   */
  asUser?: () => Promise<CodeHostAccess>;
}

/**
 * Requests about the signed-in user (`/user`, `/user/...`: the user's stars, repositories,
 * profile) and gists: what an installation token is refused (it acts as the App, not as a
 * person), so a `github_app` connection sends its user's token there. `path` is relative to
 * the API base.
 */
export function actsAsUser(path: string): boolean {
  return /^\/(user|gists)(\/|$)/.test(path);
}

/**
 * The REST base (a connection's own for enterprise servers) and the token to call it with:
 * the one place where a code-host token meets the URL it is sent to. Every code-host
 * request (Octokit steps, `github.api_call`, webhook registration, polling, the sweep)
 * gets its token here, and a token is refused (`token_origin_mismatch`, before any I/O)
 * for any origin but the one it was issued for.
 *
 * The code host ends a user token the moment its refresh token is used, so a token read
 * by this worker may already be dead when another worker refreshed it: `renew` is how a 401
 * gets one more try with the stored token, as the collection service's client does.
 */
export async function codeHostAccess(
  ctx: Pick<AppContext, 'config' | 'tokens'>,
  connection: Connection,
  actingAs?: 'user',
): Promise<CodeHostAccess> {
  const baseUrl = githubApiBase(connection, ctx.config);
  // Checked at every use, not only at creation: AGENT_RUNTIME_URL or PUBLIC_URL may be set later.
  const refusal = operatorOriginRefusal(ctx.config, baseUrl);
  if (refusal) throw refusal;
  const as = actingAs === undefined ? {} : { actingAs };
  const access: CodeHostAccess = {
    baseUrl,
    token: await originBoundToken(ctx, connection, baseUrl, as),
    async renew(rejected) {
      const next = await originBoundToken(ctx, connection, baseUrl, { forceRefresh: true, rejected, ...as });
      if (next === rejected) return undefined;
      access.token = next;
      return next;
    },
  };
  if (connection.authMethod === 'github_app' && actingAs === undefined) {
    let user: Promise<CodeHostAccess> | undefined;
    access.asUser = () => {
      user ??= codeHostAccess(ctx, connection, 'user').catch((e: unknown) => {
        user = undefined;
        throw e;
      });
      return user;
    };
  }
  return access;
}

async function originBoundToken(
  ctx: Pick<AppContext, 'config' | 'tokens'>,
  connection: Connection,
  baseUrl: string,
  options?: TokenOptions,
): Promise<string> {
  if (!ctx.tokens.credential)
    throw new AppError('internal', 'The token provider cannot say which origin a token belongs to; nothing is sent');
  const credential = await ctx.tokens.credential(connection, options);
  assertTokenOrigin(boundOrigin(credential, connection, ctx.config), baseUrl, connection.id);
  return credential.accessToken;
}
