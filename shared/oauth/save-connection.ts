import type { AppContext } from '../ports/app-context';
import { ConnectionRepo } from '../store/connection-repo';
import { writeStoredToken } from '../store/stored-token';
import { connectionTargetOrigin, providerApiOrigin } from './token-origin';
import type { Connection, Provider, StoredToken } from '../domain/model';
import { secretNames } from '../domain/model';
import type { AccountIdentity } from './identify';

export type SaveError = 'connection_not_found' | 'account_mismatch' | 'account_unverified' | 'token_origin_mismatch';
export type SaveResult = { ok: true; connectionId: string } | { ok: false; error: SaveError };

export interface SaveInput {
  provider: Provider;
  token: StoredToken;
  identity: AccountIdentity;
  label?: string;
  /** Reconnect: replace this connection's token in place. */
  connectionId?: string;
  /** Made through a connect page for this end user. */
  endUserId?: string;
}

/**
 * Stores the token FIRST, then the connection: a crash in between leaves an orphan secret
 * (harmless, overwritten or deleted later), never a connection without a token. The token
 * is stored with its origin: the provider's API, the only place an OAuth token is for.
 */
export async function saveOAuthConnection(ctx: AppContext, input: SaveInput): Promise<SaveResult> {
  const repo = new ConnectionRepo(ctx.store);
  const now = new Date(ctx.clock.now()).toISOString();
  const token: StoredToken = { ...input.token, origin: providerApiOrigin(ctx, input.provider) };
  if (input.connectionId !== undefined) return reconnect(ctx, repo, input.connectionId, { ...input, token }, now);

  const id = ConnectionRepo.newId();
  const owner = { id, provider: input.provider };
  await writeStoredToken(ctx.secrets, owner, token);
  const connection: Connection = {
    id,
    provider: input.provider,
    accountLogin: input.identity.accountLogin,
    authMethod: 'oauth',
    status: 'connected',
    repositories: [],
    createdAt: now,
    updatedAt: now,
  };
  if (input.label !== undefined) connection.label = input.label;
  if (input.endUserId !== undefined) connection.endUserId = input.endUserId;
  if (input.identity.accountId !== undefined) connection.accountId = input.identity.accountId;
  if (input.identity.unknownBecause !== undefined) {
    connection.identity = 'unknown';
    connection.identityReason = input.identity.unknownBecause;
  }
  if (input.identity.scopes !== undefined) connection.scopes = input.identity.scopes;
  if (token.expiresAt !== undefined) connection.tokenExpiresAt = token.expiresAt;
  try {
    await repo.create(connection);
  } catch (e) {
    await ctx.secrets.delete(secretNames.connectionToken(owner)).catch(() => undefined);
    throw e;
  }
  return { ok: true, connectionId: id };
}

/**
 * Why a reconnect of `existing` with a token for `tokenOrigin` and `identity` is refused, if
 * it is: it must be on the same origin (the connection keeps its base, so another origin
 * would carry the new token there) and, where the provider names accounts with a stable id,
 * the same account (its subscriptions and webhooks belong to it).
 */
function reconnectRefusal(ctx: AppContext, existing: Connection, tokenOrigin: string, identity: AccountIdentity): SaveError | undefined {
  if (connectionTargetOrigin(ctx, existing) !== tokenOrigin) return 'token_origin_mismatch';
  const def = ctx.providers[existing.provider].oauth;
  if (!def.stableAccountId) return undefined;
  const newId = identity.accountId;
  if (def.reconnectNeedsAccountId && (existing.accountId === undefined || newId === undefined)) {
    return 'account_unverified';
  }
  if (existing.accountId !== undefined && newId !== undefined && existing.accountId !== newId) return 'account_mismatch';
  return undefined;
}

async function reconnect(ctx: AppContext, repo: ConnectionRepo, id: string, input: SaveInput, now: string): Promise<SaveResult> {
  const existing = await repo.get(id);
  if (!existing || existing.provider !== input.provider) return { ok: false, error: 'connection_not_found' };
  const refusal = reconnectRefusal(ctx, existing, input.token.origin ?? '', input.identity);
  if (refusal) return { ok: false, error: refusal };
  const newId = input.identity.accountId;
  await writeStoredToken(ctx.secrets, existing, input.token);
  const updated = await repo.update(id, (c) => {
    // A user-made token reconnected through OAuth becomes an OAuth connection.
    const next: Connection = { ...c, authMethod: 'oauth', status: 'connected', updatedAt: now };
    delete next.statusReason;
    if (input.identity.unknownBecause === undefined) {
      next.accountLogin = input.identity.accountLogin;
      delete next.identity;
      delete next.identityReason;
    } else {
      // The previous name stays, marked: the new token's user was not named.
      next.identity = 'unknown';
      next.identityReason = input.identity.unknownBecause;
    }
    if (newId !== undefined) next.accountId = newId;
    // An id once taken from a name or a user (older versions did) identifies no account.
    if (!ctx.providers[input.provider].oauth.stableAccountId) delete next.accountId;
    if (input.label !== undefined) next.label = input.label;
    if (input.identity.scopes !== undefined) next.scopes = input.identity.scopes;
    if (input.token.expiresAt !== undefined) next.tokenExpiresAt = input.token.expiresAt;
    else delete next.tokenExpiresAt;
    return next;
  });
  if (!updated) return { ok: false, error: 'connection_not_found' };
  return { ok: true, connectionId: id };
}
