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
import * as z from 'zod';
import { connectionSchema, subscriptionSchema } from '../../shared/domain/model-schemas';
import { tokenConnectionBody } from '../../shared/connections/create-token-connection';
import { connectionUpdateBody } from '../../shared/connections/update-connection';
import { subscriptionBody } from '../../shared/subscriptions/subscription-input';
import { createKeyInput } from '../../shared/keys/scoped-keys';
import {
  apiKeySchema,
  createdKeySchema,
  createdSubscriptionSchema,
  deletedSubscriptionSchema,
  disconnectResultSchema,
  revokedKeySchema,
  triggerListingSchema,
} from './answers';

const idParam = z.object({ id: z.string().max(256) });
const connectionQuery = z.object({
  connectionId: z.string().max(subscriptionBounds.idLength).optional().describe("Only this connection's subscriptions"),
});
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
      spec: {
        summary: 'The trigger catalog',
        description: 'Every trigger with its targets, filters, delivery and the example event an agent would receive.',
        tags: ['triggers'],
        answers: { 200: { description: 'The catalog', body: z.object({ triggers: z.array(triggerListingSchema) }) } },
        errors: [],
      },
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
      spec: {
        summary: 'Connect a code-host account with a token the user made',
        description:
          "The token is checked with the code host's `GET /user` before anything is stored, and never answered back. `contentsnare` connects by OAuth only.",
        tags: ['connections'],
        body: tokenConnectionBody,
        answers: { 201: { description: 'The connection', body: connectionSchema } },
        errors: ['invalid_input', 'forbidden', 'upstream_error', 'timeout', 'rate_limited'],
      },
    },
    {
      method: 'GET',
      pattern: '/connections',
      auth: 'platform',
      spec: {
        summary: 'List the connections',
        tags: ['connections'],
        answers: { 200: { description: 'Every connection', body: z.object({ connections: z.array(connectionSchema) }) } },
        errors: [],
      },
      handle: async () => json(200, { connections: await connections.list() }),
    },
    {
      method: 'GET',
      pattern: '/connections/:id',
      auth: 'platform',
      spec: {
        summary: 'One connection',
        tags: ['connections'],
        params: idParam,
        answers: { 200: { description: 'The connection', body: connectionSchema } },
        errors: ['connection_not_found'],
      },
      handle: async (req) => json(200, await connectionOr404(req.params.id ?? '')),
    },
    {
      method: 'PATCH',
      pattern: '/connections/:id',
      auth: 'platform',
      spec: {
        summary: "Change a connection's label or repository allow-list",
        description:
          "An allow-list change reaches tool steps at once and triggers within 30 s. `apiBaseUrl` cannot be changed: connect again. A GitHub App connection's allow-list can only be narrowed (403 `forbidden` naming `repositories` otherwise).",
        tags: ['connections'],
        params: idParam,
        body: connectionUpdateBody,
        answers: { 200: { description: 'The connection', body: connectionSchema } },
        errors: ['invalid_input', 'forbidden', 'connection_not_found'],
      },
      handle: async (req) => json(200, await updateConnection(ctx, req.params.id ?? '', parseJson(req))),
    },
    {
      method: 'DELETE',
      pattern: '/connections/:id',
      auth: 'platform',
      spec: {
        summary: 'Disconnect: delete the subscriptions and their hooks, revoke an OAuth token, forget the token',
        tags: ['connections'],
        params: idParam,
        answers: { 200: { description: 'What was done; what the code host refused is in `warnings`', body: disconnectResultSchema } },
        errors: ['connection_not_found'],
      },
      handle: async (req) => json(200, await disconnect(ctx, req.params.id ?? '', { revoke: options.revoke })),
    },
    {
      method: 'POST',
      pattern: '/subscriptions',
      auth: 'scoped',
      spec: {
        summary: 'Subscribe an agent to a trigger',
        description:
          'The webhook is created at the code host when none serves this (connection, target) yet. The same connection, trigger, agent, target and filters answer the existing subscription (200) unless `allowDuplicate` is true.',
        tags: ['subscriptions'],
        body: subscriptionBody,
        answers: {
          201: { description: 'The subscription', body: createdSubscriptionSchema },
          200: { description: 'An identical subscription existed: that one, with `existing: true`', body: createdSubscriptionSchema },
        },
        errors: [
          'invalid_input',
          'connection_not_found',
          'forbidden',
          'reconnect_required',
          'public_url_unreachable',
          'rate_limited',
          'upstream_error',
          'timeout',
        ],
      },
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
      spec: {
        summary: "List the subscriptions (a scoped key: its connections')",
        tags: ['subscriptions'],
        query: connectionQuery,
        answers: { 200: { description: 'The subscriptions', body: z.object({ subscriptions: z.array(subscriptionSchema) }) } },
        errors: ['invalid_input'],
      },
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
      spec: {
        summary: 'One subscription',
        tags: ['subscriptions'],
        params: idParam,
        answers: { 200: { description: 'The subscription', body: subscriptionSchema } },
        errors: ['not_found'],
      },
      handle: async (req) => json(200, await subscriptionInScope(req.params.id ?? '', req.caller)),
    },
    {
      method: 'DELETE',
      pattern: '/subscriptions/:id',
      auth: 'scoped',
      spec: {
        summary: 'Unsubscribe, then narrow or delete the hook',
        tags: ['subscriptions'],
        params: idParam,
        answers: { 200: { description: 'What became of the hook', body: deletedSubscriptionSchema } },
        errors: ['not_found'],
      },
      handle: async (req) => {
        await subscriptionInScope(req.params.id ?? '', req.caller);
        return json(200, await deleteSubscription(ctx, req.params.id ?? ''));
      },
    },
    {
      method: 'POST',
      pattern: '/keys',
      auth: 'platform',
      spec: {
        summary: 'Make a scoped key that opens only the listed connections',
        tags: ['keys'],
        body: createKeyInput,
        answers: { 201: { description: 'The key, shown once', body: createdKeySchema } },
        errors: ['invalid_input'],
      },
      handle: async (req) => json(201, await createScopedKey(ctx, parseJson(req))),
    },
    {
      method: 'GET',
      pattern: '/keys',
      auth: 'platform',
      spec: {
        summary: 'List the scoped keys (never the keys themselves)',
        tags: ['keys'],
        answers: { 200: { description: 'The keys', body: z.object({ keys: z.array(apiKeySchema) }) } },
        errors: [],
      },
      handle: async () => json(200, { keys: await new ApiKeyRepo(ctx.store).list() }),
    },
    {
      method: 'DELETE',
      pattern: '/keys/:id',
      auth: 'platform',
      spec: {
        summary: 'Revoke a scoped key',
        tags: ['keys'],
        params: idParam,
        answers: { 200: { description: 'Revoked', body: revokedKeySchema } },
        errors: ['not_found'],
      },
      handle: async (req) => json(200, await revokeScopedKey(ctx.store, req.params.id ?? '')),
    },
    // The event history: GET /events, GET /events/{id}, POST /events/{id}/replay.
    ...eventRoutes(ctx),
  ];
}
