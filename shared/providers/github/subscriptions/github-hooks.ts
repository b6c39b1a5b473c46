import { AppError } from '../../../domain/errors';
import { loadOnce } from '../../../domain/load-once';
import type { Connection, EndpointTarget, Subscription } from '../../../domain/model';
import type { AppContext } from '../../../ports/app-context';
import { ConnectionRepo } from '../../../store/connection-repo';
import { endpointIdFor, EndpointRepo } from '../../../store/endpoint-repo';
import { withLease } from '../../../store/lease';
import { SubscriptionRepo } from '../../../store/subscription-repo';
import { keys } from '../../../store/table-design';
import type { DeletedSubscription, HookManager, ReleaseOutcome } from '../../../subscriptions/hook-manager';
import type { SubscriptionRequest } from '../../../subscriptions/subscription-input';
import { canPoll, sourceFor } from '../../../subscriptions/trigger-rules';
import { triggerCatalogOf } from '../../../ports/provider-contract';
import { checkAppTrigger, installationOf } from './app-subscription';
import { ensureHook, releaseEndpoint, webhookUrl } from './endpoint-hook';
import { followAccountRename } from './follow-account';
import { resolveColumn } from './resolve-column';

// The polling code (list reads, item mapping, fan-out) is loaded on the first subscription a
// container creates, not at every platform-api cold start.
const loadPollBaseline = loadOnce(() => import('../polling/poll-baseline'));

/**
 * The code host's hook manager. A webhook trigger gets (or shares) the connection's hook on
 * the repository or organization, or, on a GitHub App connection, only a route on the App's
 * one webhook; a trigger without a webhook (or whose hook could not be made) is polled from a
 * baseline recorded before the subscription exists, so nothing that existed at subscription
 * time is announced.
 */
export const githubHooks: HookManager = {
  async admit(ctx, connection, req) {
    // A GitHub App connection's webhook triggers need only the installation, not the user's own token.
    const appWebhook =
      connection.authMethod === 'github_app' && sourceFor(triggerCatalogOf(ctx.providers), req.trigger, req.target)?.kind === 'webhook';
    if (connection.status === 'reconnect_required' && !appWebhook)
      throw new AppError('reconnect_required', `Connection ${connection.id} must be reconnected first`);
    // Named under an account's new login the product has not seen yet: the account's id decides.
    const current = await followAccountRename(ctx, connection, req.target);
    // Payloads name classic project columns by id only: a column given by name becomes its id here.
    if (req.trigger === 'github.new_card_in_column' && req.filters.column !== undefined) {
      req.filters.column = await resolveColumn(ctx, current, req.target, req.filters.column);
    }
    return current;
  },
  subscribe: subscribeOnCodeHost,
  unsubscribe: unsubscribeOnCodeHost,
  async releaseLeftovers(ctx, connection) {
    const outcomes: ReleaseOutcome[] = [];
    for (const endpoint of await new EndpointRepo(ctx.store).list(connection.id)) {
      outcomes.push(await withLease(ctx, `endpoint#${endpoint.id}`, () => releaseEndpoint(ctx, connection, endpoint.id)));
    }
    return outcomes;
  },
  webhookUrl: (ctx, sub) => (sub.delivery === 'webhook' && sub.endpointId ? webhookUrl(ctx, sub.endpointId) : undefined),
};

/** The repository's id when the allow-list knows it (else the first delivery naming the repository fills it in). */
function repositoryIdOf(connection: Connection, target: SubscriptionRequest['target']): { repositoryId?: number } {
  const id = target.kind === 'repository' ? connection.repositoryIds?.[target.repository.toLowerCase()] : undefined;
  return id === undefined ? {} : { repositoryId: id };
}

/**
 * One new subscription. The subscription item is written last, under the endpoint's lease,
 * so a crash midway leaves at worst a hook that routes to nobody, never an event routed to
 * the wrong place; a write that fails puts the hook back as it was. Everything in the body
 * is validated and bounded before the code host is asked anything.
 */
async function subscribeOnCodeHost(ctx: AppContext, connection: Connection, req: SubscriptionRequest): Promise<Subscription> {
  const source = sourceFor(triggerCatalogOf(ctx.providers), req.trigger, req.target);
  const sub: Subscription = {
    id: SubscriptionRepo.newId(),
    connectionId: connection.id,
    trigger: req.trigger,
    agentId: req.agentId,
    repository: req.target.kind === 'repository' ? req.target.repository : undefined,
    ...repositoryIdOf(connection, req.target),
    organization: req.target.kind === 'organization' ? req.target.organization : undefined,
    filters: req.filters,
    delivery: 'polling',
    createdAt: new Date(ctx.clock.now()).toISOString(),
  };
  if (source?.kind === 'webhook' && req.target.kind !== 'account' && connection.authMethod === 'github_app') {
    return subscribeThroughApp(ctx, connection, req, sub);
  }
  if (source?.kind === 'webhook' && req.target.kind !== 'account') {
    try {
      return await subscribeThroughHook(ctx, connection, req.target, sub);
    } catch (e) {
      if (!(e instanceof AppError) || (e.code !== 'forbidden' && e.code !== 'not_found') || !canPoll(req.trigger)) throw e;
      sub.note = `No webhook could be made (${e.message}); this trigger is polled every few minutes instead.`;
    }
  }
  await (await loadPollBaseline()).recordBaseline(ctx, connection, sub);
  await new SubscriptionRepo(ctx.store).create(sub);
  logCreated(ctx, sub, sub.delivery);
  return sub;
}

/** The App's one webhook already carries every event of the installation: no hook, no admin, only a route. */
async function subscribeThroughApp(
  ctx: AppContext,
  connection: Connection,
  req: SubscriptionRequest,
  sub: Subscription,
): Promise<Subscription> {
  const { note } = checkAppTrigger(triggerCatalogOf(ctx.providers), connection, req.trigger, req.target);
  const made: Subscription = { ...sub, delivery: 'webhook', installationId: installationOf(connection).id, ...(note ? { note } : {}) };
  await recordTagWatch(ctx, connection, made);
  await new SubscriptionRepo(ctx.store).create(made);
  logCreated(ctx, made, 'app');
  return made;
}

async function subscribeThroughHook(
  ctx: AppContext,
  connection: Connection,
  target: EndpointTarget,
  sub: Subscription,
): Promise<Subscription> {
  const endpointId = endpointIdFor(connection.id, target);
  return withLease(ctx, `endpoint#${endpointId}`, async () => {
    await ensureHook(ctx, connection, target, sub.trigger);
    const made: Subscription = { ...sub, delivery: 'webhook', endpointId };
    try {
      await new SubscriptionRepo(ctx.store).create(made);
    } catch (e) {
      // The hook was widened (or made) for this subscription: put it back to what the others need.
      const undo = await releaseEndpoint(ctx, connection, endpointId);
      if (undo.warning) ctx.logger.warn('failed subscription: hook left widened', { endpointId, warning: undo.warning });
      throw e;
    }
    // Tags pushed more than three at once reach no webhook: new_tag also watches the tags list (poll-tags.ts).
    await recordTagWatch(ctx, connection, made);
    return made;
  });
}

async function recordTagWatch(ctx: AppContext, connection: Connection, sub: Subscription): Promise<void> {
  await (await loadPollBaseline())
    .recordTagWatch(ctx, connection, sub)
    .catch((e: unknown) => ctx.logger.warn('tag watch not recorded: only tags the webhook announces will be seen', { error: e }));
}

function logCreated(ctx: AppContext, sub: Subscription, delivery: string): void {
  ctx.logger.info('subscription created', {
    subscriptionId: sub.id,
    connectionId: sub.connectionId,
    trigger: sub.trigger,
    delivery,
  });
}

/**
 * The subscription first (nothing routes to it any more), then its hook is narrowed or
 * deleted at the code host. What the code host refused is reported in `warning`.
 */
async function unsubscribeOnCodeHost(ctx: AppContext, sub: Subscription): Promise<DeletedSubscription> {
  const repo = new SubscriptionRepo(ctx.store);
  if (sub.delivery !== 'webhook' || sub.endpointId === undefined) {
    await repo.delete(sub.id);
    await ctx.store.delete(keys.pollCursor(sub.id));
    return { id: sub.id, deleted: true, hook: 'none' };
  }
  const endpointId = sub.endpointId;
  // A new_tag subscription's tag watch (polling/poll-tags.ts) goes first, so it never outlives the subscription.
  if (sub.trigger === 'github.new_tag') await ctx.store.delete(keys.pollCursor(sub.id));
  const outcome = await withLease(ctx, `endpoint#${endpointId}`, async () => {
    await repo.delete(sub.id);
    const connection = await new ConnectionRepo(ctx.store).get(sub.connectionId);
    return releaseEndpoint(ctx, connection, endpointId);
  });
  ctx.logger.info('subscription deleted', { subscriptionId: sub.id, hook: outcome.hook, warning: outcome.warning });
  return { id: sub.id, deleted: true, ...outcome };
}
