import * as z from 'zod';
import { connectionSchema, subscriptionSchema } from '../../shared/domain/model-schemas';
import { tokenConnectionBody } from '../../shared/connections/create-token-connection';
import { connectionListQuery } from '../../shared/connections/list-connections';
import { connectionUpdateBody } from '../../shared/connections/update-connection';
import { subscriptionBody, subscriptionBounds } from '../../shared/subscriptions/subscription-input';
import { createKeyInput } from '../../shared/keys/scoped-keys';
import type { RouteTable } from '../../shared/http/route-table';
import {
  apiKeySchema,
  createdKeySchema,
  createdSubscriptionSchema,
  deletedSubscriptionSchema,
  disconnectResultSchema,
  revokedKeySchema,
  triggerListingSchema,
} from './answers';
import { eventRouteTable } from './event-route-table';

const idParam = z.object({ id: z.string().max(256) });
const connectionQuery = z.object({
  connectionId: z.string().max(subscriptionBounds.idLength).optional().describe("Only this connection's subscriptions"),
});

/**
 * The platform API (docs/api.md): connections, subscriptions, scoped keys, the trigger catalog
 * and the event history. Connections and keys need the platform key; the rest also take a
 * scoped key, limited to its connections. Handlers: functions/platform-api/routes.ts.
 */
export const platformApiRouteTable = {
  listTriggers: {
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
  },
  createConnection: {
    method: 'POST',
    pattern: '/connections',
    auth: 'platform',
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
  listConnections: {
    method: 'GET',
    pattern: '/connections',
    auth: 'platform',
    spec: {
      summary: 'List the connections',
      tags: ['connections'],
      query: connectionListQuery,
      answers: { 200: { description: 'Every connection', body: z.object({ connections: z.array(connectionSchema) }) } },
      errors: [],
    },
  },
  getConnection: {
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
  },
  updateConnection: {
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
  },
  disconnect: {
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
  },
  createSubscription: {
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
        'not_found',
        'forbidden',
        'reconnect_required',
        'public_url_unreachable',
        'rate_limited',
        'upstream_error',
        'timeout',
      ],
    },
  },
  listSubscriptions: {
    method: 'GET',
    pattern: '/subscriptions',
    auth: 'scoped',
    spec: {
      summary: "List the subscriptions (a scoped key: its connections', and its agents' when it names agents)",
      tags: ['subscriptions'],
      query: connectionQuery,
      answers: { 200: { description: 'The subscriptions', body: z.object({ subscriptions: z.array(subscriptionSchema) }) } },
      errors: ['invalid_input'],
    },
  },
  getSubscription: {
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
  },
  deleteSubscription: {
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
  },
  createKey: {
    method: 'POST',
    pattern: '/keys',
    auth: 'platform',
    spec: {
      summary: 'Make a scoped key that opens only the listed connections (and, with `agents`, only those agents)',
      tags: ['keys'],
      body: createKeyInput,
      answers: { 201: { description: 'The key, shown once', body: createdKeySchema } },
      errors: ['invalid_input'],
    },
  },
  listKeys: {
    method: 'GET',
    pattern: '/keys',
    auth: 'platform',
    spec: {
      summary: 'List the scoped keys (never the keys themselves)',
      tags: ['keys'],
      answers: { 200: { description: 'The keys', body: z.object({ keys: z.array(apiKeySchema) }) } },
      errors: [],
    },
  },
  revokeKey: {
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
  },
  // The event history: GET /events, GET /events/{id}, POST /events/{id}/replay.
  ...eventRouteTable,
} satisfies RouteTable;
