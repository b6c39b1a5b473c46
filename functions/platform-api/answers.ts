import * as z from 'zod';
import type { DisconnectResult } from '../../shared/connections/disconnect';
import { apiComponents, subscriptionSchema, triggerIdSchema } from '../../shared/domain/model-schemas';
import type { ApiKeyRecord } from '../../shared/store/api-key-repo';
import type { DeletedSubscription } from '../../shared/subscriptions/delete-subscription';
import type { TriggerListing } from '../../shared/subscriptions/trigger-listing';

/*
 * What the platform API's routes answer, for the OpenAPI document; each tied by `satisfies`
 * to the type its use case returns.
 */

export const triggerListingSchema = z.object({
  id: triggerIdSchema,
  title: z.string(),
  description: z.string(),
  includes: z.string(),
  targets: z.array(z.string()).describe('What a subscription names: `repository`, `organization`, or nothing (the account)'),
  filters: z.array(z.string()),
  delivery: z.enum(['webhook', 'polling']),
  recoverable: z
    .boolean()
    .optional()
    .describe(
      'Collection-service triggers: whether the scheduled check recovers a delivery the service never made (`includes` says why not)',
    ),
  answeredBy: z
    .array(z.string())
    .describe('The tool steps that answer it (ids of GET /tools): what an agent woken by it reads and does next'),
  exampleEvent: z
    .unknown()
    .describe('The body the agent runtime receives, built from the documented example; null when none could be built'),
});
apiComponents.add(triggerListingSchema, { id: 'TriggerListing' });
triggerListingSchema satisfies z.ZodType<Omit<TriggerListing, 'id'> & { id: string }>;

export const createdSubscriptionSchema = subscriptionSchema.extend({
  existing: z.literal(true).optional().describe('An identical subscription was there already: this is it (200)'),
});

export const disconnectResultSchema = z.object({
  id: z.string(),
  deleted: z.literal(true),
  subscriptionsDeleted: z.number().int(),
  hooksDeleted: z.number().int(),
  keysUpdated: z.number().int().describe('Scoped keys that listed the connection: it is taken off each'),
  revoked: z.boolean().optional(),
  note: z.string().optional(),
  warnings: z.array(z.string()).describe('What the code host refused; the connection is gone either way'),
}) satisfies z.ZodType<DisconnectResult>;

export const deletedSubscriptionSchema = z.object({
  id: z.string(),
  deleted: z.literal(true),
  hook: z.enum(['kept', 'updated', 'deleted', 'none']),
  warning: z.string().optional(),
}) satisfies z.ZodType<DeletedSubscription>;

export const apiKeySchema = z.object({
  id: z.string(),
  label: z.string(),
  connections: z.array(z.string()),
  endUserId: z.string().optional().describe("An end user's key: it opens every connection of theirs too, present and future"),
  agents: z.array(z.string()).optional().describe('The agents the key acts for: only their subscriptions and events. Absent: every agent'),
  createdAt: z.string(),
  expiresAt: z.string().optional(),
}) satisfies z.ZodType<ApiKeyRecord>;

export const createdKeySchema = apiKeySchema.extend({ key: z.string().describe('`aik_...`: shown once, never again') });

export const revokedKeySchema = z.object({ id: z.string(), revoked: z.literal(true) });
