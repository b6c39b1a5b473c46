import * as z from 'zod';
import type { AppContext } from '../ports/app-context';
import { AppError } from '../domain/errors';
import { secretNames, type Connection } from '../domain/model';
import { parseOrThrow } from '../domain/validation';
import { isOk, restCall, upstreamMessage } from '../providers/github/webhooks/rest-call';
import { apiBaseUrl } from './api-base-url';
import { githubAccountId, githubLogin } from '../domain/account-identity';
import { operatorOriginRefusal } from '../http/guarded-fetch';
import { ConnectionRepo } from '../store/connection-repo';
import { writeStoredToken } from '../store/stored-token';
import { originOf } from '../oauth/token-origin';

export const tokenConnectionBody = z
  .object({
    provider: z.enum(['github', 'contentsnare']),
    token: z.string().trim().min(1, 'is required').max(1000),
    label: z.string().trim().min(1).max(200).optional(),
    apiBaseUrl: apiBaseUrl.optional(),
  })
  .strict();

const userSchema = z.object({ login: githubLogin, id: githubAccountId.optional() });

/**
 * A connect page's claim, called once the token is proven good and before anything is kept:
 * the end user the connection is for, or a throw when the page was spent meanwhile.
 */
export type EndUserClaim = () => Promise<string>;

/**
 * `POST /connections` with a token the user made, optionally for an enterprise server
 * (`apiBaseUrl`; OAuth connections use GITHUB_API_URL). The token is checked against the code
 * host's `GET /user` (which also names the account), stored in the secret store BEFORE the
 * connection item exists (so a connection never lacks its token), and never answered back.
 */
export async function createTokenConnection(ctx: AppContext, body: unknown, forEndUser?: EndUserClaim): Promise<Connection> {
  const input = parseOrThrow(tokenConnectionBody, body);
  if (input.provider === 'contentsnare') {
    throw new AppError('invalid_input', 'provider: contentsnare connects by OAuth only; start with POST /oauth/contentsnare/authorize', {
      fields: [{ field: 'provider', message: 'contentsnare connects by OAuth only' }],
    });
  }
  // An enterprise server's own base: the token is checked there, and every later call goes there.
  const baseUrl = input.apiBaseUrl ?? ctx.config.github.apiUrl;
  // The token is not even sent to check it: see operatorOriginRefusal.
  const refusal = operatorOriginRefusal(ctx.config, baseUrl);
  if (refusal) throw refusal;
  const result = await restCall(ctx.fetch, { baseUrl, token: input.token, method: 'GET', path: '/user' });
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
  const now = new Date(ctx.clock.now()).toISOString();
  const connection: Connection = {
    id: ConnectionRepo.newId(),
    provider: 'github',
    label: input.label,
    apiBaseUrl: input.apiBaseUrl,
    accountLogin: user.data.login,
    accountId: user.data.id === undefined ? undefined : String(user.data.id),
    authMethod: 'token',
    status: 'connected',
    repositories: [],
    scopes: scopesHeader
      ? scopesHeader
          .split(',')
          .map((s) => s.trim())
          .filter(Boolean)
      : undefined,
    createdAt: now,
    updatedAt: now,
  };
  if (forEndUser) connection.endUserId = await forEndUser();
  // Bound to the origin it was verified at: code-host requests never carry it anywhere else.
  // Written before the connection (which must never lack its token), and removed again if
  // the connection cannot be stored: no failure leaves an orphan secret.
  await writeStoredToken(ctx.secrets, connection, { accessToken: input.token, origin: originOf(baseUrl) });
  try {
    await new ConnectionRepo(ctx.store).create(connection);
  } catch (e) {
    await ctx.secrets.delete(secretNames.connectionToken(connection)).catch(() => undefined);
    throw e;
  }
  ctx.logger.info('connection created', { connectionId: connection.id, accountLogin: connection.accountLogin, authMethod: 'token' });
  return connection;
}
