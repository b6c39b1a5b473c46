import { createHash } from 'node:crypto';
import type { AppContext } from '../ports/app-context';
import { ConnectionRepo } from '../store/connection-repo';
import { isRepositoryAllowed } from '../domain/allow-list';
import { AppError } from '../domain/errors';
import { loadOnce } from '../domain/load-once';
import { takesEvents, type Connection, type EndpointTarget, type Subscription } from '../domain/model';
import { endpointIdFor } from '../store/endpoint-repo';
import { ensureHook, releaseEndpoint } from '../providers/github/subscriptions/endpoint-hook';
import { withLease } from '../store/lease';
import { parseSubscriptionRequest, type SubscriptionRequest } from './subscription-input';
import { resolveColumn } from '../providers/github/subscriptions/resolve-column';
import { SubscriptionRepo } from '../store/subscription-repo';
import { canPoll, sourceFor } from './trigger-rules';
import { checkAppTrigger, installationOf } from '../providers/github/subscriptions/app-subscription';
import { triggerCatalog } from '../domain/trigger-catalog';
import { isSnareTriggerId } from '../domain/triggers';
import { makeSnareSubscription } from '../providers/contentsnare/subscriptions/snare-subscription';
import { followAccountRename } from '../providers/github/subscriptions/follow-account';

// The polling code (list reads, item mapping, fan-out) is loaded on the first subscription a
// container creates, not at every platform-api cold start.
const loadPollBaseline = loadOnce(() => import('../polling/poll-baseline'));

async function connectionFor(ctx: AppContext, req: SubscriptionRequest): Promise<Connection> {
  let connection = await new ConnectionRepo(ctx.store).get(req.connectionId);
  if (!connection)
    throw new AppError('connection_not_found', `connectionId: no connection ${req.connectionId}`, {
      fields: [{ field: 'connectionId', message: 'no such connection' }],
    });
  const provider = triggerCatalog[req.trigger].provider;
  if (connection.provider !== provider) {
    const kind = provider === 'github' ? 'code-host' : 'collection-service';
    throw new AppError(
      'invalid_input',
      `connectionId: connection ${connection.id} is not a ${kind} connection (${req.trigger} needs one)`,
      {
        fields: [{ field: 'connectionId', message: `not a ${kind} connection` }],
      },
    );
  }
  if (!takesEvents(connection.status))
    throw new AppError(
      'forbidden',
      `Connection ${connection.id}: its GitHub App installation is ${connection.status === 'revoked' ? 'deleted' : 'suspended'}${connection.statusReason ? ` (${connection.statusReason})` : ''}`,
    );
  // A GitHub App connection's webhook triggers need only the installation, not the user's own token.
  const appWebhook = connection.authMethod === 'github_app' && sourceFor(req.trigger, req.target)?.kind === 'webhook';
  if (connection.status === 'reconnect_required' && !appWebhook)
    throw new AppError('reconnect_required', `Connection ${connection.id} must be reconnected first`);
  // Named under an account's new login the product has not seen yet: the account's id decides.
  connection = await followAccountRename(ctx, connection, req.target);
  if (req.target.kind === 'repository' && !isRepositoryAllowed(connection, req.target.repository)) {
    throw new AppError('forbidden', `repository: ${req.target.repository} is outside the connection's repository allow-list`, {
      fields: [{ field: 'repository', message: 'outside the allow-list' }],
    });
  }
  return connection;
}

/** A subscription as `POST /subscriptions` answers it: `existing` when an identical one was there already. */
export type CreatedSubscription = Subscription & { existing?: true };

type SameParts = Pick<Subscription, 'connectionId' | 'trigger' | 'agentId' | 'repository' | 'organization' | 'filters'>;

/**
 * What makes two subscriptions the same: connection, trigger, agent, target and filters.
 * The code host's names are case-insensitive; filter lists are sets.
 */
export function sameSubscriptionKey(s: SameParts): string {
  const f = s.filters;
  return JSON.stringify([
    s.connectionId,
    s.trigger,
    s.agentId,
    s.repository?.toLowerCase() ?? null,
    s.organization?.toLowerCase() ?? null,
    f.branches ? [...f.branches].sort() : null,
    f.labels ? [...f.labels].sort() : null,
    f.column ?? null,
    f.project ?? null,
    // Only written when set, so the keys of subscriptions made before these filters existed are unchanged.
    ...(f.template !== undefined || f.folder !== undefined || f.client !== undefined
      ? [f.template?.toLowerCase() ?? null, f.folder?.toLowerCase() ?? null, f.client?.toLowerCase() ?? null]
      : []),
  ]);
}

/**
 * `POST /subscriptions`. The same subscription asked for again (the same command pasted
 * after a restart) answers the one there is, marked `existing`, rather than making a second
 * that would bring every event to the agent twice; `allowDuplicate: true` makes the second.
 * The look and the write are under one lease per identity, so two identical requests at
 * once make one subscription.
 */
export async function createSubscription(ctx: AppContext, body: unknown): Promise<CreatedSubscription> {
  const req = parseSubscriptionRequest(body);
  const connection = await connectionFor(ctx, req);
  // Payloads name classic project columns by id only: a column given by name becomes its id here.
  if (req.trigger === 'github.new_card_in_column' && req.filters.column !== undefined) {
    req.filters.column = await resolveColumn(ctx, connection, req.target, req.filters.column);
  }
  if (req.allowDuplicate) return makeSubscription(ctx, req, connection);
  const key = sameSubscriptionKey({
    connectionId: connection.id,
    trigger: req.trigger,
    agentId: req.agentId,
    repository: req.target.kind === 'repository' ? req.target.repository : undefined,
    organization: req.target.kind === 'organization' ? req.target.organization : undefined,
    filters: req.filters,
  });
  const lease = `subscribe#${createHash('sha256').update(key).digest('hex').slice(0, 32)}`;
  return withLease(
    ctx,
    lease,
    async () => {
      const same = (await new SubscriptionRepo(ctx.store).list(connection.id)).find((s) => sameSubscriptionKey(s) === key);
      if (same) {
        ctx.logger.info('subscription asked for again: the existing one answers', { subscriptionId: same.id });
        return { ...same, existing: true as const };
      }
      return makeSubscription(ctx, req, connection);
    },
    // A polled trigger's baseline reads its list first: room for that.
    { ttlSeconds: 120 },
  );
}

/** The repository's id when the allow-list knows it (else the first delivery naming the repository fills it in). */
function repositoryIdOf(connection: Connection, target: SubscriptionRequest['target']): { repositoryId?: number } {
  const id = target.kind === 'repository' ? connection.repositoryIds?.[target.repository.toLowerCase()] : undefined;
  return id === undefined ? {} : { repositoryId: id };
}

/**
 * One new subscription. Webhook triggers get (or share) the connection's hook on the
 * repository or organization; the subscription item is written last, under the endpoint's
 * lease, so a crash midway leaves at worst a hook that routes to nobody, never an event
 * routed to the wrong place; a write that fails puts the hook back as it was. Everything in
 * the body is validated and bounded before the code host is asked anything. Polled triggers record their baseline before the
 * subscription exists, so nothing that existed at subscription time is announced.
 */
async function makeSubscription(ctx: AppContext, req: SubscriptionRequest, connection: Connection): Promise<Subscription> {
  if (isSnareTriggerId(req.trigger)) return makeSnareSubscription(ctx, connection, { ...req, trigger: req.trigger });
  const source = sourceFor(req.trigger, req.target);
  const repo = new SubscriptionRepo(ctx.store);
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
    // The App's one webhook already carries every event of the installation: no hook, no admin, only a route.
    const { note } = checkAppTrigger(connection, req.trigger, req.target);
    const made: Subscription = { ...sub, delivery: 'webhook', installationId: installationOf(connection).id, ...(note ? { note } : {}) };
    await (await loadPollBaseline())
      .recordTagWatch(ctx, connection, made)
      .catch((e: unknown) => ctx.logger.warn('tag watch not recorded: only tags the webhook announces will be seen', { error: e }));
    await repo.create(made);
    ctx.logger.info('subscription created', {
      subscriptionId: made.id,
      connectionId: made.connectionId,
      trigger: made.trigger,
      delivery: 'app',
    });
    return made;
  }
  if (source?.kind === 'webhook' && req.target.kind !== 'account') {
    const target: EndpointTarget = req.target;
    const endpointId = endpointIdFor(connection.id, target);
    try {
      return await withLease(ctx, `endpoint#${endpointId}`, async () => {
        await ensureHook(ctx, connection, target, req.trigger);
        const made: Subscription = { ...sub, delivery: 'webhook', endpointId };
        try {
          await repo.create(made);
        } catch (e) {
          // The hook was widened (or made) for this subscription: put it back to what the others need.
          const undo = await releaseEndpoint(ctx, connection, endpointId);
          if (undo.warning) ctx.logger.warn('failed subscription: hook left widened', { endpointId, warning: undo.warning });
          throw e;
        }
        // Tags pushed more than three at once reach no webhook: new_tag also watches the tags list (poll-tags.ts).
        await (await loadPollBaseline())
          .recordTagWatch(ctx, connection, made)
          .catch((e: unknown) => ctx.logger.warn('tag watch not recorded: only tags the webhook announces will be seen', { error: e }));
        return made;
      });
    } catch (e) {
      if (!(e instanceof AppError) || (e.code !== 'forbidden' && e.code !== 'not_found') || !canPoll(req.trigger)) throw e;
      sub.note = `No webhook could be made (${e.message}); this trigger is polled every few minutes instead.`;
    }
  }
  await (await loadPollBaseline()).recordBaseline(ctx, connection, sub);
  await repo.create(sub);
  ctx.logger.info('subscription created', {
    subscriptionId: sub.id,
    connectionId: sub.connectionId,
    trigger: sub.trigger,
    delivery: sub.delivery,
  });
  return sub;
}
