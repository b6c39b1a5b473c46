import type { AppContext } from '../../shared/ports/app-context';
import {
  assertCallerActsFor,
  assertCallerMayUse,
  callerActsFor,
  callerMaySee,
  platformCaller,
  type Caller,
} from '../../shared/domain/caller';
import { AppError } from '../../shared/domain/errors';
import { json } from '../../shared/http/responses';
import type { RouteHandlers } from '../../shared/http/route-table';
import type { RouteRequest } from '../../shared/http/types';
import { createSubscription } from '../../shared/subscriptions/create-subscription';
import { deleteSubscription } from '../../shared/subscriptions/delete-subscription';
import { subscriptionBounds } from '../../shared/subscriptions/subscription-input';
import { SubscriptionRepo } from '../../shared/store/subscription-repo';
import type { platformApiRouteTable } from './route-table';

type SubscriptionRoutes = 'createSubscription' | 'listSubscriptions' | 'getSubscription' | 'deleteSubscription';

/** The `connectionId` filter of `GET /subscriptions`: it becomes an index key, so it is bounded like the ids it names. */
function connectionFilter(req: RouteRequest): string | undefined {
  const connectionId = req.query.get('connectionId') || undefined;
  if (connectionId !== undefined && connectionId.length > subscriptionBounds.idLength) {
    throw new AppError('invalid_input', `connectionId: longer than ${subscriptionBounds.idLength} characters`, {
      fields: [{ field: 'connectionId', message: `longer than ${subscriptionBounds.idLength} characters` }],
    });
  }
  return connectionId;
}

/** `/subscriptions` and `/subscriptions/{id}`: the platform key, or a scoped key within its connections and agents. */
export function subscriptionHandlers(ctx: AppContext): Pick<RouteHandlers<typeof platformApiRouteTable>, SubscriptionRoutes> {
  const subscriptions = new SubscriptionRepo(ctx.store);
  // A subscription outside a scoped key's reach (another connection, another agent) is answered
  // exactly as an unknown id: the key learns nothing of it, not even its connection.
  const subscriptionInScope = async (id: string, caller: Caller = platformCaller) => {
    const sub = await subscriptions.get(id);
    if (!sub || !callerMaySee(caller, sub)) throw new AppError('not_found', `No subscription ${id}`);
    return sub;
  };
  return {
    createSubscription: async (req) => {
      const caller = req.caller ?? platformCaller;
      // A scoped key subscribes only its own connections, for its own agents.
      assertCallerMayUse(caller, req.input.connectionId);
      assertCallerActsFor(caller, req.input.agentId);
      const made = await createSubscription(ctx, req.input);
      return json(made.existing ? 200 : 201, made);
    },
    listSubscriptions: async (req) => {
      const caller = req.caller ?? platformCaller;
      const connectionId = connectionFilter(req);
      if (connectionId !== undefined) assertCallerMayUse(caller, connectionId);
      if (caller.kind === 'scoped' && connectionId === undefined) {
        const lists = await Promise.all(caller.connections.map((id) => subscriptions.list(id)));
        return json(200, { subscriptions: lists.flat().filter((sub) => callerActsFor(caller, sub.agentId)) });
      }
      const listed = await subscriptions.list(connectionId);
      return json(200, { subscriptions: listed.filter((sub) => callerActsFor(caller, sub.agentId)) });
    },
    getSubscription: async (req) => json(200, await subscriptionInScope(req.params.id ?? '', req.caller)),
    deleteSubscription: async (req) => {
      await subscriptionInScope(req.params.id ?? '', req.caller);
      return json(200, await deleteSubscription(ctx, req.params.id ?? ''));
    },
  };
}
