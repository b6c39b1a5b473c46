import type { AppContext } from '../app/context';
import { ConnectionRepo } from '../connections/connection-repo';
import { writeStoredToken } from '../connections/stored-token';
import type { Connection, Provider, StoredToken } from '../domain/model';
import { secretNames } from '../domain/model';
import type { AccountIdentity } from './identify';

export type SaveResult = { ok: true; connectionId: string } | { ok: false; error: 'connection_not_found' | 'account_mismatch' };

export interface SaveInput {
  provider: Provider;
  token: StoredToken;
  identity: AccountIdentity;
  label?: string;
  /** Reconnect: replace this connection's token in place. */
  connectionId?: string;
}

/**
 * Stores the token FIRST, then the connection: a crash in between leaves an orphan secret
 * (harmless, overwritten or deleted later), never a connection without a token.
 */
export async function saveOAuthConnection(ctx: AppContext, input: SaveInput): Promise<SaveResult> {
  const repo = new ConnectionRepo(ctx.store);
  const now = new Date(ctx.clock.now()).toISOString();
  if (input.connectionId !== undefined) return reconnect(ctx, repo, input.connectionId, input, now);

  const id = ConnectionRepo.newId();
  await writeStoredToken(ctx.secrets, id, input.token);
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
  if (input.identity.accountId !== undefined) connection.accountId = input.identity.accountId;
  if (input.identity.scopes !== undefined) connection.scopes = input.identity.scopes;
  if (input.token.expiresAt !== undefined) connection.tokenExpiresAt = input.token.expiresAt;
  try {
    await repo.create(connection);
  } catch (e) {
    await ctx.secrets.delete(secretNames.connectionToken(id)).catch(() => undefined);
    throw e;
  }
  return { ok: true, connectionId: id };
}

async function reconnect(ctx: AppContext, repo: ConnectionRepo, id: string, input: SaveInput, now: string): Promise<SaveResult> {
  const existing = await repo.get(id);
  if (!existing || existing.provider !== input.provider) return { ok: false, error: 'connection_not_found' };
  // Its subscriptions and webhooks belong to the old account: a different one is refused.
  const newId = input.identity.accountId;
  if (existing.accountId !== undefined && newId !== undefined && existing.accountId !== newId) {
    return { ok: false, error: 'account_mismatch' };
  }
  await writeStoredToken(ctx.secrets, id, input.token);
  const updated = await repo.update(id, (c) => {
    // A user-made token reconnected through OAuth becomes an OAuth connection.
    const next: Connection = { ...c, authMethod: 'oauth', status: 'connected', updatedAt: now };
    delete next.statusReason;
    if (input.provider === 'github') next.accountLogin = input.identity.accountLogin;
    if (newId !== undefined) next.accountId = newId;
    if (input.label !== undefined) next.label = input.label;
    if (input.identity.scopes !== undefined) next.scopes = input.identity.scopes;
    if (input.token.expiresAt !== undefined) next.tokenExpiresAt = input.token.expiresAt;
    else delete next.tokenExpiresAt;
    return next;
  });
  if (!updated) return { ok: false, error: 'connection_not_found' };
  return { ok: true, connectionId: id };
}
