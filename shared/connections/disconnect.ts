import type { AppContext } from '../ports/app-context';
import { AppError } from '../domain/errors';
import { secretNames, type Connection } from '../domain/model';
import type { RevokeOutcome } from '../oauth/revoke';
import { deleteSubscription } from '../subscriptions/delete-subscription';
import { SubscriptionRepo } from '../store/subscription-repo';
import { ConnectionRepo } from '../store/connection-repo';
import { ApiKeyRepo } from '../store/api-key-repo';

export interface DisconnectOptions {
  /**
   * Revokes the token at the provider (OAuth connections). Throws when a due revocation
   * failed (reported as a warning, not thrown on); answers what it did (nothing answered:
   * revoked).
   */
  revoke?: (connection: Connection) => Promise<RevokeOutcome | undefined>;
}

export interface DisconnectResult {
  id: string;
  deleted: true;
  subscriptionsDeleted: number;
  hooksDeleted: number;
  /** Scoped keys that listed the connection and no longer do. */
  keysUpdated: number;
  revoked?: boolean;
  /** Why the token was not revoked though nothing failed (user-made tokens, already revoked). */
  note?: string;
  /** What could not be done at the code host (hooks left behind, revocation refused). */
  warnings: string[];
}

/**
 * `DELETE /connections/{id}`: the connection off every scoped key, its subscriptions (and their hooks at the code host, best
 * effort but reported), then revocation, then the stored token, then the connection item.
 * The token goes before the item so that a crash midway never leaves a token without a
 * connection that could be used to find and delete it.
 */
export async function disconnect(ctx: AppContext, id: string, options: DisconnectOptions = {}): Promise<DisconnectResult> {
  const connections = new ConnectionRepo(ctx.store);
  const connection = await connections.get(id);
  if (!connection) throw new AppError('connection_not_found', `No connection ${id}`);
  // First, so that no scoped key reads its history or acts on it from here on, even if a
  // later step fails (a retried DELETE finds the connection and does it again).
  const keysUpdated = await new ApiKeyRepo(ctx.store).removeConnection(id);
  const warnings: string[] = [];
  let hooksDeleted = 0;
  const subs = await new SubscriptionRepo(ctx.store).list(id);
  for (const sub of subs) {
    const out = await deleteSubscription(ctx, sub.id).catch((e: unknown) => {
      if (e instanceof AppError && e.code === 'not_found') return undefined;
      throw e;
    });
    if (out?.hook === 'deleted') hooksDeleted++;
    if (out?.warning) warnings.push(out.warning);
  }
  // Hooks left without subscriptions (an earlier failed cleanup) go too.
  for (const out of await ctx.providers[connection.provider].hooks.releaseLeftovers(ctx, connection)) {
    if (out.hook === 'deleted') hooksDeleted++;
    if (out.warning) warnings.push(out.warning);
  }
  let revoked: boolean | undefined;
  let note: string | undefined;
  if (options.revoke) {
    try {
      const outcome = await options.revoke(connection);
      revoked = outcome ? outcome.revoked : true;
      note = outcome?.note;
    } catch (e) {
      revoked = false;
      warnings.push(`The token could not be revoked at the provider: ${(e as Error).message}`);
    }
  }
  await ctx.secrets.delete(secretNames.connectionToken(connection));
  await connections.delete(id);
  ctx.logger.info('connection deleted', {
    connectionId: id,
    subscriptionsDeleted: subs.length,
    hooksDeleted,
    keysUpdated,
    warnings: warnings.length,
  });
  return {
    id,
    deleted: true,
    subscriptionsDeleted: subs.length,
    hooksDeleted,
    keysUpdated,
    revoked,
    ...(note !== undefined ? { note } : {}),
    warnings,
  };
}
