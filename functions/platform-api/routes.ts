import type { AppContext } from '../../shared/ports/app-context';
import { ConnectionRepo } from '../../shared/store/connection-repo';
import { createTokenConnection } from '../../shared/connections/create-token-connection';
import { disconnect, type DisconnectOptions } from '../../shared/connections/disconnect';
import { updateConnection } from '../../shared/connections/update-connection';
import { assertCallerMayUse, platformCaller, type Caller } from '../../shared/domain/caller';
import { AppError } from '../../shared/domain/errors';
import { ApiKeyRepo } from '../../shared/store/api-key-repo';
import { createScopedKey, revokeScopedKey } from '../../shared/keys/scoped-keys';
import { json } from '../../shared/http/responses';
import type { HttpRequest, Route } from '../../shared/http/types';
import { createSubscription } from '../../shared/subscriptions/create-subscription';
import { deleteSubscription } from '../../shared/subscriptions/delete-subscription';
import { subscriptionBounds } from '../../shared/subscriptions/subscription-input';
import { SubscriptionRepo } from '../../shared/store/subscription-repo';
import type { TriggerListing } from '../../shared/subscriptions/trigger-listing';
import { eventRoutes } from './event-routes';

function parseJson(req: HttpRequest): unknown {
  if (req.body.length === 0) return {};
  try {
    return JSON.parse(req.body.toString('utf8'));
  } catch {
    throw new AppError('invalid_input', 'Request body is not valid JSON', { fields: [{ field: '(body)', message: 'not valid JSON' }] });
  }
}

export interface PlatformApiOptions {
  /** Token revocation at disconnect (the OAuth wiring supplies it). */
  revoke?: DisconnectOptions['revoke'];
}

/**
 * Connections, subscriptions, scoped keys and the trigger catalog (docs/api.md). Connections and keys need
 * the platform key; subscriptions and the catalog also take a scoped key, limited to its connections.
 */
export function routes(ctx: AppContext, options: PlatformApiOptions = {}): Route[] {
  const connections = new ConnectionRepo(ctx.store);
  const subscriptions = new SubscriptionRepo(ctx.store);
  const subscriptionInScope = async (id: string, caller: Caller = platformCaller) => {
    const sub = await subscriptions.get(id);
    if (!sub) throw new AppError('not_found', `No subscription ${id}`);
    assertCallerMayUse(caller, sub.connectionId);
    return sub;
  };
  const connectionOr404 = async (id: string) => {
    const c = await connections.get(id);
    if (!c) throw new AppError('connection_not_found', `No connection ${id}`);
    return c;
  };
  // Built once per container: the catalog and its examples do not change while it runs. Loaded
  // on first use: the examples are ~140 KB of JSON that every other route's cold start would parse.
  let listing: TriggerListing[] | undefined;
  return [
    {
      method: 'GET',
      pattern: '/triggers',
      auth: 'scoped',
      handle: async () => {
        if (!listing) {
          const [{ triggerListing }, { loadExample }] = await Promise.all([
            import('../../shared/subscriptions/trigger-listing'),
            import('../../shared/subscriptions/example-docs'),
          ]);
          listing = triggerListing(loadExample);
        }
        return json(200, { triggers: listing });
      },
    },
    {
      method: 'POST',
      pattern: '/connections',
      auth: 'platform',
      handle: async (req) => json(201, await createTokenConnection(ctx, parseJson(req))),
    },
    { method: 'GET', pattern: '/connections', auth: 'platform', handle: async () => json(200, { connections: await connections.list() }) },
    {
      method: 'GET',
      pattern: '/connections/:id',
      auth: 'platform',
      handle: async (req) => json(200, await connectionOr404(req.params.id ?? '')),
    },
    {
      method: 'PATCH',
      pattern: '/connections/:id',
      auth: 'platform',
      handle: async (req) => json(200, await updateConnection(ctx, req.params.id ?? '', parseJson(req))),
    },
    {
      method: 'DELETE',
      pattern: '/connections/:id',
      auth: 'platform',
      handle: async (req) => json(200, await disconnect(ctx, req.params.id ?? '', { revoke: options.revoke })),
    },
    {
      method: 'POST',
      pattern: '/subscriptions',
      auth: 'scoped',
      handle: async (req) => {
        const body = parseJson(req);
        const connectionId = (body as { connectionId?: unknown } | null)?.connectionId;
        // A scoped key subscribes only its own connections; a missing or malformed id is refused by the input check below.
        if (typeof connectionId === 'string') assertCallerMayUse(req.caller ?? platformCaller, connectionId);
        const made = await createSubscription(ctx, body);
        return json(made.existing ? 200 : 201, made);
      },
    },
    {
      method: 'GET',
      pattern: '/subscriptions',
      auth: 'scoped',
      handle: async (req) => {
        const caller = req.caller ?? platformCaller;
        const connectionId = req.query.get('connectionId') || undefined;
        // It becomes an index key: bounded like the ids it names.
        if (connectionId !== undefined && connectionId.length > subscriptionBounds.idLength) {
          throw new AppError('invalid_input', `connectionId: longer than ${subscriptionBounds.idLength} characters`, {
            fields: [{ field: 'connectionId', message: `longer than ${subscriptionBounds.idLength} characters` }],
          });
        }
        if (connectionId !== undefined) assertCallerMayUse(caller, connectionId);
        if (caller.kind === 'scoped' && connectionId === undefined) {
          const lists = await Promise.all(caller.connections.map((id) => subscriptions.list(id)));
          return json(200, { subscriptions: lists.flat() });
        }
        return json(200, { subscriptions: await subscriptions.list(connectionId) });
      },
    },
    {
      method: 'GET',
      pattern: '/subscriptions/:id',
      auth: 'scoped',
      handle: async (req) => json(200, await subscriptionInScope(req.params.id ?? '', req.caller)),
    },
    {
      method: 'DELETE',
      pattern: '/subscriptions/:id',
      auth: 'scoped',
      handle: async (req) => {
        await subscriptionInScope(req.params.id ?? '', req.caller);
        return json(200, await deleteSubscription(ctx, req.params.id ?? ''));
      },
    },
    {
      method: 'POST',
      pattern: '/keys',
      auth: 'platform',
      handle: async (req) => json(201, await createScopedKey(ctx, parseJson(req))),
    },
    { method: 'GET', pattern: '/keys', auth: 'platform', handle: async () => json(200, { keys: await new ApiKeyRepo(ctx.store).list() }) },
    {
      method: 'DELETE',
      pattern: '/keys/:id',
      auth: 'platform',
      handle: async (req) => json(200, await revokeScopedKey(ctx.store, req.params.id ?? '')),
    },
    // The event history: GET /events, GET /events/{id}, POST /events/{id}/replay.
    ...eventRoutes(ctx),
  ];
}
