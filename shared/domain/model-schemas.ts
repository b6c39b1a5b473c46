import * as z from 'zod';
import type { Connection, Subscription, TriggerEvent } from './model';
import { triggerIds } from './triggers';

/*
 * The model's records as the API answers them, as zod schemas: the OpenAPI document is
 * generated from these, and `satisfies` ties each to its interface in model.ts, so a field
 * the model gains and the schema lacks fails the type check.
 */

/**
 * Answer shapes the API document names once under `components.schemas` (by `id`) and refers
 * to wherever they appear. Output side only: an input schema is described where it is taken.
 */
export const apiComponents = z.registry<{ id: string }>();

const isoTime = z.string().describe('ISO 8601 time');

/** A trigger id, `github.new_issue` ... */
export const triggerIdSchema = z.enum(triggerIds as [string, ...string[]]);
apiComponents.add(triggerIdSchema, { id: 'TriggerId' });

export const connectionSchema = z
  .object({
    id: z.string().describe('`conn_...`'),
    provider: z.enum(['github', 'contentsnare']),
    label: z.string().optional(),
    accountLogin: z.string().describe("The account's login at the provider, or its name/e-mail (collection service)"),
    accountId: z.string().optional(),
    identity: z.literal('unknown').optional(),
    identityReason: z.string().optional(),
    authMethod: z.enum(['token', 'oauth', 'github_app']),
    installation: z
      .object({
        id: z.number().int(),
        account: z.object({ login: z.string(), id: z.string(), type: z.enum(['User', 'Organization']) }),
        repositorySelection: z.enum(['all', 'selected']),
        permissions: z.record(z.string(), z.string()),
        events: z.array(z.string()),
      })
      .optional(),
    reach: z
      .enum(['installation', 'user'])
      .optional()
      .describe(
        "`github_app` only: `installation` when the user administers the installation's account (acts with the installation's token); `user` otherwise (acts with the user's own token, within the repositories this user can access)",
      ),
    status: z.enum(['connected', 'reconnect_required', 'suspended', 'revoked']),
    statusReason: z.string().optional(),
    apiBaseUrl: z.string().optional(),
    repositories: z
      .array(z.string())
      .describe(
        'Allow-list of `owner/name`; empty: all (on a `github_app` connection, only with reach `installation` on an installation of all repositories; otherwise none)',
      ),
    repositoryIds: z
      .record(z.string(), z.number().int())
      .optional()
      .describe(
        "The code host's ids of allow-list entries, by lower-cased `owner/name`: such an entry follows its repository through a rename or a transfer",
      ),
    scopes: z.array(z.string()).optional(),
    tokenExpiresAt: z.number().optional().describe('epoch ms'),
    sandboxDemo: z.literal(true).optional(),
    endUserId: z.string().optional().describe("The platform's end user it was made for, through a connect page"),
    createdAt: isoTime,
    updatedAt: isoTime,
  })
  .describe('A connected account; the token itself is never answered') satisfies z.ZodType<Connection>;

export const subscriptionSchema = z.object({
  id: z.string().describe('`sub_...`'),
  connectionId: z.string(),
  trigger: triggerIdSchema,
  agentId: z.string(),
  repository: z.string().optional().describe('`owner/name` as last seen (it follows renames and transfers)'),
  repositoryId: z.number().int().optional().describe("The repository's id at the code host: events are matched by it when known"),
  organization: z.string().optional(),
  organizationId: z.number().int().optional().describe("The organization's id at the code host: events are matched by it when known"),
  filters: z.object({
    branches: z.array(z.string()).optional(),
    labels: z.array(z.string()).optional(),
    column: z.string().optional(),
    project: z.string().optional(),
  }),
  delivery: z.enum(['webhook', 'polling']),
  endpointId: z.string().optional().describe('`ep_...`'),
  note: z.string().optional().describe('Said to the user, e.g. why polling replaced a webhook'),
  createdAt: isoTime,
});
// The enum is the catalog's ids; the check below is on the rest of the shape.
apiComponents.add(connectionSchema, { id: 'Connection' });
apiComponents.add(subscriptionSchema, { id: 'Subscription' });
subscriptionSchema satisfies z.ZodType<Omit<Subscription, 'trigger'> & { trigger: string }>;

export const triggerEventSchema = z.object({
  id: z.string().describe('The event id: the same across retries and redeliveries; drop duplicates by it'),
  trigger: triggerIdSchema,
  subscriptionId: z.string(),
  agentId: z.string(),
  connectionId: z.string(),
  deliveryId: z.string().describe("The code host's X-GitHub-Delivery; polled events carry `poll:<subscriptionId>:<item>`"),
  occurredAt: isoTime,
  event: z
    .record(z.string(), z.unknown())
    .describe("What an agent needs for this trigger: each trigger's fields are in GET /triggers (`exampleEvent`)"),
});
apiComponents.add(triggerEventSchema, { id: 'TriggerEvent' });
triggerEventSchema satisfies z.ZodType<Omit<TriggerEvent, 'trigger'> & { trigger: string }>;
