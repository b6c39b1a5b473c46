import * as z from 'zod';
import { clientOutput } from './outputs';
import { contentsnareStep } from './step';
import { createClientBody } from '../request-bodies';
import { clientRecord, parseAnswer } from '../schemas';

const text = (max: number, what: string) => z.string().trim().min(1).max(max).describe(what);

/**
 * Input: the friendly names (`name`, `email`, `company_name`: docs/tool-steps.md), translated to
 * the partner API's `POST /clients` fields in request-bodies.ts. Strict: a field the step
 * does not know is refused naming it, never sent blind (the service's list is closed:
 * `email`, `full_name`, `first_name`, `last_name`, `phone`, `language_code`,
 * `client_companies`).
 */
const input = () =>
  z
    .strictObject({
      name: text(255, "The client's full name (sent as full_name)"),
      email: z.email().max(320).describe("The client's e-mail address; requests reach the client through it"),
      company_name: text(255, "The client's company (sent as client_companies: [{name}]; created at the service if new)").optional(),
      first_name: text(255, 'First name').optional(),
      last_name: text(255, 'Last name').optional(),
      phone: text(50, 'Phone number; needed for SMS reminders').optional(),
      language_code: z
        .string()
        .trim()
        .toLowerCase()
        .regex(/^[a-z]{2}(-[a-z]{2})?$/, 'must be a language code such as en, en-gb, de or pt-br')
        .optional()
        .describe('Language of what the client sees, e.g. en, en-gb, es, fr, de, nl, pt-br'),
    })
    .describe('A client profile. Unknown fields are refused.');

export const createClient = contentsnareStep({
  id: 'contentsnare.create_client',
  title: 'Create Client',
  toolset: 'contentsnare',
  description:
    'Create a client profile at the collection service (POST /partner_api/v1/clients with full_name, email and the optional profile fields; company_name becomes the client company). An e-mail that is already a client is refused by the service (conflict, "already_invited").',
  output: clientOutput,
  permissions: { oauthScopes: ['write_clients'] },
  input,
  async run(args, client) {
    const res = await client.request({ method: 'POST', endpoint: 'clients', body: createClientBody(args) });
    return parseAnswer(clientRecord, res.data, 'create client');
  },
});
