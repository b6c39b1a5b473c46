import * as z from 'zod';
import { AppError } from '../../domain/errors';
import { githubAccountId, githubLogin } from '../../domain/account-identity';
import { operatorOriginRefusal } from '../../http/guarded-fetch';
import type { UserTokenCheck } from '../../oauth/user-token';
import { isOk, restCall, upstreamMessage } from './webhooks/rest-call';

const userSchema = z.object({ login: githubLogin, id: githubAccountId.optional() });

/**
 * A token the user made, optionally for an enterprise server (`apiBaseUrl`; OAuth connections
 * use GITHUB_API_URL), checked against the code host's `GET /user`, which also names the
 * account and, for a classic token, its scopes (`X-OAuth-Scopes`).
 */
export const checkGithubUserToken: UserTokenCheck = async (ctx, token, apiBaseUrl) => {
  // An enterprise server's own base: the token is checked there, and every later call goes there.
  const baseUrl = apiBaseUrl ?? ctx.config.github.apiUrl;
  // The token is not even sent to check it: see operatorOriginRefusal.
  const refusal = operatorOriginRefusal(ctx.config, baseUrl);
  if (refusal) throw refusal;
  const result = await restCall(ctx.fetch, { baseUrl, token, method: 'GET', path: '/user' });
  if (result.status === 401) {
    throw new AppError('invalid_input', 'token: the token was refused by the code host (expired, revoked or mistyped)', {
      fields: [{ field: 'token', message: 'was refused by the code host' }],
    });
  }
  if (!isOk(result))
    throw new AppError('upstream_error', `The code host could not check the token: ${upstreamMessage(result)}`, {
      upstreamStatus: result.status,
    });
  const user = userSchema.safeParse(result.body);
  if (!user.success) {
    // Names the field, never its value (which may be anything, of any size).
    const issue = user.error.issues[0];
    const field = String(issue?.path[0] ?? 'login');
    throw new AppError('upstream_error', `The code host answered GET /user with an unusable ${field}: ${issue?.message ?? 'missing'}`, {
      field,
    });
  }
  const scopesHeader = result.headers.get('x-oauth-scopes');
  const scopes = scopesHeader
    ? scopesHeader
        .split(',')
        .map((s) => s.trim())
        .filter(Boolean)
    : undefined;
  return {
    baseUrl,
    account: { accountLogin: user.data.login, accountId: user.data.id === undefined ? undefined : String(user.data.id), scopes },
  };
};
