import type { AppContext } from '../ports/app-context';
import { AppError } from '../domain/errors';
import { triggerCatalogOf } from '../ports/provider-contract';
import { SubscriptionRepo } from '../store/subscription-repo';
import type { DeletedSubscription } from './hook-manager';

export type { DeletedSubscription } from './hook-manager';

/**
 * `DELETE /subscriptions/{id}`: the subscription first (nothing routes to it any more),
 * then its provider narrows or deletes its hook. What the provider refused is reported in
 * `warning`, not thrown: the subscription is gone either way.
 */
export async function deleteSubscription(ctx: AppContext, id: string): Promise<DeletedSubscription> {
  const sub = await new SubscriptionRepo(ctx.store).get(id);
  if (!sub) throw new AppError('not_found', `No subscription ${id}`);
  return ctx.providers[triggerCatalogOf(ctx.providers)[sub.trigger].provider].hooks.unsubscribe(ctx, sub);
}
