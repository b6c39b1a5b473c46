import { releaseSnareHook, ensureSnareHook, snareHookLease, snareRouteId } from '../snare-hook';
import { AppError } from '../../../domain/errors';
import type { Connection, Subscription, SubscriptionFilters } from '../../../domain/model';
import type { SnareTriggerId } from '../../../domain/triggers';
import type { AppContext } from '../../../ports/app-context';
import { ConnectionRepo } from '../../../store/connection-repo';
import { withLease } from '../../../store/lease';
import { SubscriptionRepo } from '../../../store/subscription-repo';
import { assertReachableWebhookUrl } from '../../../subscriptions/public-url-check';
import type { DeletedSubscription, HookManager } from '../../../subscriptions/hook-manager';
import type { SubscriptionRequest } from '../../../subscriptions/subscription-input';
import { isSnareTriggerId } from '../../../domain/triggers';

/**
 * Collection-service subscriptions: the account's triggers, served by the connection's one
 * webhook (shared/providers/contentsnare/snare-hook.ts). The hook and the subscription change under one
 * lease per connection, so two subscribes at once register one hook with both events. The
 * subscription is written after the hook carries its event; a write that fails narrows the
 * hook back.
 */
export async function makeSnareSubscription(
  ctx: AppContext,
  connection: Connection,
  req: { trigger: SnareTriggerId; agentId: string; filters: SubscriptionFilters },
): Promise<Subscription> {
  // Before anything is stored or asked: a URL the service could not reach gets the fix, not a hook that never fires.
  try {
    assertReachableWebhookUrl(`${ctx.config.publicUrl}/webhooks/contentsnare/`, ctx.config.contentsnare.apiUrl);
  } catch (e) {
    if (!(e instanceof AppError)) throw e;
    throw new AppError(
      'public_url_unreachable',
      `PUBLIC_URL (${ctx.config.publicUrl}) is out of the collection service's reach, so its webhook deliveries could not arrive. ` +
        'Set PUBLIC_URL to a public tunnel to this runtime (e.g. https://<name>.ngrok.app); the collection service has no relay channel (WEBHOOK_PROXY_URL is for the code host only)',
      { fix: ['PUBLIC_URL'] },
    );
  }
  const repo = new SubscriptionRepo(ctx.store);
  const sub: Subscription = {
    id: SubscriptionRepo.newId(),
    connectionId: connection.id,
    trigger: req.trigger,
    agentId: req.agentId,
    filters: req.filters,
    delivery: 'webhook',
    endpointId: snareRouteId(connection.id),
    createdAt: new Date(ctx.clock.now()).toISOString(),
  };
  return withLease(ctx, snareHookLease(connection.id), async () => {
    await ensureSnareHook(ctx, connection, req.trigger);
    try {
      await repo.create(sub);
    } catch (e) {
      const undo = await releaseSnareHook(ctx, connection, connection.id);
      if (undo.warning) ctx.logger.warn('failed subscription: Content Snare webhook left widened', { warning: undo.warning });
      throw e;
    }
    ctx.logger.info('subscription created', {
      subscriptionId: sub.id,
      connectionId: sub.connectionId,
      trigger: sub.trigger,
      delivery: sub.delivery,
    });
    return sub;
  });
}

/** Deletes the subscription, then narrows or removes the connection's webhook (reported, not thrown). */
export async function deleteSnareSubscription(ctx: AppContext, sub: Subscription): Promise<DeletedSubscription> {
  const outcome = await withLease(ctx, snareHookLease(sub.connectionId), async () => {
    await new SubscriptionRepo(ctx.store).delete(sub.id);
    const connection = await new ConnectionRepo(ctx.store).get(sub.connectionId);
    return releaseSnareHook(ctx, connection, sub.connectionId);
  });
  ctx.logger.info('subscription deleted', { subscriptionId: sub.id, hook: outcome.hook, warning: outcome.warning });
  return { id: sub.id, deleted: true, ...outcome };
}

/**
 * The collection service's hook manager: one webhook per connection, carrying the events of
 * its subscriptions (`snare-hook.ts`).
 */
export const snareHooks: HookManager = {
  async admit(_ctx, connection) {
    if (connection.status === 'reconnect_required')
      throw new AppError('reconnect_required', `Connection ${connection.id} must be reconnected first`);
    return connection;
  },
  subscribe: (ctx, connection, req: SubscriptionRequest) => {
    const trigger = req.trigger;
    if (!isSnareTriggerId(trigger)) throw new AppError('internal', `${trigger} is not a collection-service trigger`);
    return makeSnareSubscription(ctx, connection, { ...req, trigger });
  },
  unsubscribe: deleteSnareSubscription,
  // The connection's one webhook goes with its last subscription: nothing is left over.
  releaseLeftovers: async () => [],
  webhookUrl: () => undefined,
};
