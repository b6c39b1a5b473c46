import * as z from 'zod';
import { recordId } from '../schemas';

/**
 * The collection service's records as the steps hand them on: the fields of the partner
 * API reference's client and request objects, field by field; anything else the service
 * adds is dropped. Built on first use (cold start).
 */

const maybe = () => z.string().nullable().optional();

const clientFields = () => ({
  id: recordId.describe('acc_...; use it as client_id in Create Request'),
  full_name: maybe(),
  email: z.string(),
  phone: maybe(),
  company_name: maybe(),
  avatar: maybe(),
});

export const clientOutput = () =>
  z.object({
    ...clientFields(),
    first_name: maybe(),
    last_name: maybe(),
    language_code: maybe(),
    client_companies: z
      .array(z.object({ id: recordId.optional(), name: z.string() }))
      .nullable()
      .optional(),
  });

/** The statuses the service reports for a request; only `published` is one the client can see. */
export const requestStatuses = ['draft', 'scheduled', 'published', 'waiting', 'completed', 'archived'] as const;

export const requestOutput = () =>
  z.object({
    id: recordId.describe('req_...'),
    name: maybe(),
    status: z.string().describe(`The status the service reports: ${requestStatuses.join(', ')}; only published is visible to the client`),
    sent: z.boolean().describe('True only when the service reports the request published to the client'),
    due: maybe().describe('Deadline (date-time)'),
    url: maybe(),
    share_link: maybe().describe('The link the client opens'),
    share_via_link_enabled: z.boolean().nullable().optional(),
    passcode_enabled: z.boolean().nullable().optional(),
    comments_enabled: z.boolean().nullable().optional(),
    language_code: maybe(),
    folder_name: maybe(),
    request_template_name: maybe(),
    communications_template_name: maybe(),
    owner_id: z.union([recordId, z.null()]).optional(),
    owner_name: maybe(),
    primary_client_id: z.union([recordId, z.null()]).optional(),
    completion_percentage: z.number().nullable().optional(),
    updated_at: maybe(),
    client: z.object(clientFields()).partial({ email: true }).nullable().optional(),
    client_status: maybe(),
  });
