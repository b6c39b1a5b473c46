import type { AppContext } from '../ports/app-context';
import { ConnectionRepo } from '../store/connection-repo';
import { AppError } from '../domain/errors';
import { keys } from '../store/table-design';
import { releaseEndpoint, type ReleaseOutcome } from '../providers/github/subscriptions/endpoint-hook';
import { withLease } from '../store/lease';
import { SubscriptionRepo } from '../store/subscription-repo';
import { isSnareTriggerId } from '../domain/triggers';
import { deleteSnareSubscription } from '../providers/contentsnare/subscriptions/snare-subscription';

export interface DeletedSubscription extends ReleaseOutcome {
  id: string;
  deleted: true;
}

/**
 * `DELETE /subscriptions/{id}`: the subscription first (nothing routes to it any more),
 * then its hook is narrowed or deleted at the code host. What the code host refused is
 * reported in `warning`, not thrown: the subscription is gone either way.
 */
export async function deleteSubscription(ctx: AppContext, id: string): Promise<DeletedSubscription> {
  const repo = new SubscriptionRepo(ctx.store);
  const sub = await repo.get(id);
  if (!sub) throw new AppError('not_found', `No subscription ${id}`);
  if (isSnareTriggerId(sub.trigger)) return deleteSnareSubscription(ctx, sub);
  if (sub.delivery !== 'webhook' || sub.endpointId === undefined) {
    await repo.delete(id);
    await ctx.store.delete(keys.pollCursor(id));
    return { id, deleted: true, hook: 'none' };
  }
  const endpointId = sub.endpointId;
  // A new_tag subscription's tag watch (polling/poll-tags.ts) goes first, so it never outlives the subscription.
  if (sub.trigger === 'github.new_tag') await ctx.store.delete(keys.pollCursor(id));
  const outcome = await withLease(ctx, `endpoint#${endpointId}`, async () => {
    await repo.delete(id);
    const connection = await new ConnectionRepo(ctx.store).get(sub.connectionId);
    return releaseEndpoint(ctx, connection, endpointId);
  });
  ctx.logger.info('subscription deleted', { subscriptionId: id, hook: outcome.hook, warning: outcome.warning });
  return { id, deleted: true, ...outcome };
}
