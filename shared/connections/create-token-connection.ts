import * as z from 'zod';
import type { AppContext } from '../ports/app-context';
import { AppError } from '../domain/errors';
import { secretNames, type Connection } from '../domain/model';
import { parseOrThrow } from '../domain/validation';
import { apiBaseUrl } from './api-base-url';
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

/**
 * A connect page's claim, called once the token is proven good and before anything is kept:
 * the end user the connection is for, or a throw when the page was spent meanwhile.
 */
export type EndUserClaim = () => Promise<string>;

/**
 * `POST /connections` with a token the user made, optionally for an enterprise server
 * (`apiBaseUrl`). The token is checked by its provider (`userToken` of the provider contract,
 * which also names the account; a provider without one connects by OAuth only), stored in the
 * secret store BEFORE the connection item exists (so a connection never lacks its token), and
 * never answered back.
 */
export async function createTokenConnection(ctx: AppContext, body: unknown, forEndUser?: EndUserClaim): Promise<Connection> {
  const input = parseOrThrow(tokenConnectionBody, body);
  const check = ctx.providers[input.provider].userToken;
  if (!check) {
    throw new AppError(
      'invalid_input',
      `provider: ${input.provider} connects by OAuth only; start with POST /oauth/${input.provider}/authorize`,
      { fields: [{ field: 'provider', message: `${input.provider} connects by OAuth only` }] },
    );
  }
  const { account, baseUrl } = await check(ctx, input.token, input.apiBaseUrl);
  const now = new Date(ctx.clock.now()).toISOString();
  const connection: Connection = {
    id: ConnectionRepo.newId(),
    provider: input.provider,
    label: input.label,
    apiBaseUrl: input.apiBaseUrl,
    accountLogin: account.accountLogin,
    accountId: account.accountId,
    authMethod: 'token',
    status: 'connected',
    repositories: [],
    scopes: account.scopes,
    createdAt: now,
    updatedAt: now,
  };
  if (forEndUser) connection.endUserId = await forEndUser();
  // Bound to the origin it was verified at: the provider's requests never carry it anywhere else.
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
