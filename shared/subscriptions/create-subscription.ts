import { createHash } from 'node:crypto';
import type { AppContext } from '../ports/app-context';
import { ConnectionRepo } from '../store/connection-repo';
import { isRepositoryAllowed } from '../domain/allow-list';
import { AppError } from '../domain/errors';
import { takesEvents, type Connection, type Subscription } from '../domain/model';
import { withLease } from '../store/lease';
import { parseSubscriptionRequest, type SubscriptionRequest } from './subscription-input';
import { SubscriptionRepo } from '../store/subscription-repo';
import { triggerCatalogOf } from '../ports/provider-contract';

async function connectionFor(ctx: AppContext, req: SubscriptionRequest): Promise<Connection> {
  let connection = await new ConnectionRepo(ctx.store).get(req.connectionId);
  if (!connection)
    throw new AppError('connection_not_found', `connectionId: no connection ${req.connectionId}`, {
      fields: [{ field: 'connectionId', message: 'no such connection' }],
    });
  const provider = triggerCatalogOf(ctx.providers)[req.trigger].provider;
  if (connection.provider !== provider) {
    const kind = ctx.providers[provider].connectionKind;
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
  // The provider refuses a connection to reconnect first, and settles the request's names (an account renamed).
  connection = await ctx.providers[connection.provider].hooks.admit(ctx, connection, req);
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
  const req = parseSubscriptionRequest(triggerCatalogOf(ctx.providers), body);
  const connection = await connectionFor(ctx, req);
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

async function makeSubscription(ctx: AppContext, req: SubscriptionRequest, connection: Connection): Promise<Subscription> {
  return ctx.providers[connection.provider].hooks.subscribe(ctx, connection, req);
}
