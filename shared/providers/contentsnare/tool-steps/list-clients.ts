import * as z from 'zod';
import { clientOutput } from './outputs';
import { listed, pagingInput } from './list-page';
import { listOutput } from './read-outputs';
import { contentsnareStep } from './step';

export const listClients = contentsnareStep({
  id: 'contentsnare.list_clients',
  title: 'List Clients',
  toolset: 'contentsnare',
  description:
    "Lists the account's clients (GET /partner_api/v1/clients), optionally those whose name or e-mail contains `q`, a page at a time. Use it to find a client's id for Create Request or List Requests.",
  output: () => listOutput(clientOutput().partial({ email: true })),
  permissions: { oauthScopes: ['read_clients'] },
  input: () =>
    z.strictObject({
      q: z.string().trim().min(1).max(255).optional().describe('Only clients whose full name or e-mail contains this text'),
      ...pagingInput,
    }),
  async run(args, client) {
    const res = await client.request({
      method: 'GET',
      endpoint: 'clients',
      query: { ...(args.q === undefined ? {} : { q: args.q }), limit: args.limit, offset: args.offset },
    });
    return listed(res.data, 'list clients', args.offset, args.limit);
  },
});
