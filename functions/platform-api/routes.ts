import type { AppContext } from '../../shared/ports/app-context';
import { ConnectionRepo } from '../../shared/store/connection-repo';
import { createTokenConnection } from '../../shared/connections/create-token-connection';
import { disconnect, type DisconnectOptions } from '../../shared/connections/disconnect';
import { updateConnection } from '../../shared/connections/update-connection';
import { AppError } from '../../shared/domain/errors';
import { json } from '../../shared/http/responses';
import type { HttpRequest, Route } from '../../shared/http/types';
import { createSubscription } from '../../shared/subscriptions/create-subscription';
import { deleteSubscription } from '../../shared/subscriptions/delete-subscription';
import { subscriptionBounds } from '../../shared/subscriptions/subscription-input';
import { SubscriptionRepo } from '../../shared/store/subscription-repo';
import type { TriggerListing } from '../../shared/subscriptions/trigger-listing';

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

/** Connections and subscriptions (CONTRACT.md), all behind the platform key. */
export function routes(ctx: AppContext, options: PlatformApiOptions = {}): Route[] {
  const connections = new ConnectionRepo(ctx.store);
  const subscriptions = new SubscriptionRepo(ctx.store);
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
      auth: 'platform',
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
      auth: 'platform',
      handle: async (req) => {
        const made = await createSubscription(ctx, parseJson(req));
        return json(made.existing ? 200 : 201, made);
      },
    },
    {
      method: 'GET',
      pattern: '/subscriptions',
      auth: 'platform',
      handle: async (req) => {
        const connectionId = req.query.get('connectionId') || undefined;
        // It becomes an index key: bounded like the ids it names.
        if (connectionId !== undefined && connectionId.length > subscriptionBounds.idLength) {
          throw new AppError('invalid_input', `connectionId: longer than ${subscriptionBounds.idLength} characters`, {
            fields: [{ field: 'connectionId', message: `longer than ${subscriptionBounds.idLength} characters` }],
          });
        }
        return json(200, { subscriptions: await subscriptions.list(connectionId) });
      },
    },
    {
      method: 'GET',
      pattern: '/subscriptions/:id',
      auth: 'platform',
      handle: async (req) => {
        const sub = await subscriptions.get(req.params.id ?? '');
        if (!sub) throw new AppError('not_found', `No subscription ${req.params.id}`);
        return json(200, sub);
      },
    },
    {
      method: 'DELETE',
      pattern: '/subscriptions/:id',
      auth: 'platform',
      handle: async (req) => json(200, await deleteSubscription(ctx, req.params.id ?? '')),
    },
  ];
}
