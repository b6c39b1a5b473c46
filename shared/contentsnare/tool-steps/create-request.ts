import * as z from 'zod';
import type { ToolStep } from '../../tools/tool-step';
import { calendarDate } from '../calendar-date';
import type { ContentSnareClient } from '../client';
import { createdRecord, parseAnswer } from '../schemas';

const id = (what: string) =>
  z.union([z.string().trim().min(1).max(255), z.number().int().positive()]).describe(what);

/**
 * Input: the service's own field names. `due_date` must be a real day (2026-02-30 is
 * refused before anything is sent). Customization options of a request are not
 * documented, so any other field (JSON) is passed through as it is (`catchall`).
 */
const input = z
  .object({
    client_id: id('Id of the client receiving the request (from Create Client)'),
    template_id: id('Id of the template the request is built from'),
    name: z.string().trim().min(1).max(255).describe('Title of the request'),
    due_date: calendarDate.optional().describe('Deadline, a calendar date YYYY-MM-DD'),
  })
  .catchall(z.json())
  .describe('A request to send; other customization options are passed through to the service as given');

export const createRequest: ToolStep<typeof input, ContentSnareClient> = {
  id: 'contentsnare.create_request',
  provider: 'contentsnare',
  title: 'Create Request',
  description:
    'Create an information-collection request from a template and send it to a client (POST /partner_api/v1/requests), with an optional deadline and customization options.',
  outputDescription: 'The created request record as the service returns it; always has `id` (use it with the API Call step to read its status).',
  input,
  async run(args, client) {
    const res = await client.request({ method: 'POST', endpoint: 'requests', body: args });
    return parseAnswer(createdRecord, res.data, 'create request');
  },
};
