import * as z from 'zod';
import type { ToolStep } from '../../tools/tool-step';
import type { ContentSnareClient } from '../client';
import { createdRecord, parseAnswer } from '../schemas';

const optionalText = (what: string) => z.string().trim().min(1).max(255).optional().describe(what);
/** Extra profile details are scalars; anything nested is refused rather than sent blind. */
const profileValue = z.union([z.string().max(2000), z.number(), z.boolean(), z.null()]);

/**
 * Input: the service's own field names. `name` and `email` are required; the profile
 * fields we know of are listed, and any other profile detail (a scalar) is passed through
 * as it is (`catchall`), because the service's full field list is not documented.
 */
const input = z
  .object({
    name: z.string().trim().min(1).max(255).describe("The client's name"),
    email: z.email().max(320).describe("The client's e-mail address"),
    first_name: optionalText('First name'),
    last_name: optionalText('Last name'),
    company_name: optionalText('Company name'),
    phone: optionalText('Phone number'),
  })
  .catchall(profileValue)
  .describe('A client profile; other profile details (strings, numbers, booleans) are passed through to the service as given');

export const createClient: ToolStep<typeof input, ContentSnareClient> = {
  id: 'contentsnare.create_client',
  provider: 'contentsnare',
  title: 'Create Client',
  description: 'Create a client profile at the collection service (POST /partner_api/v1/clients). Requests are then sent to this client.',
  outputDescription: 'The created client record as the service returns it; always has `id` (use it as `client_id` in Create Request).',
  input,
  async run(args, client) {
    const res = await client.request({ method: 'POST', endpoint: 'clients', body: args });
    return parseAnswer(createdRecord, res.data, 'create client');
  },
};
