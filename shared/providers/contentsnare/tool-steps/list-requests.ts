import * as z from 'zod';
import { listed, pagingInput } from './list-page';
import { requestOutput, requestStatuses } from './outputs';
import { listOutput } from './read-outputs';
import { contentsnareStep } from './step';

export const listRequests = contentsnareStep({
  id: 'contentsnare.list_requests',
  title: 'List Requests',
  toolset: 'contentsnare',
  description:
    "Lists the account's requests (GET /partner_api/v1/requests) with their status and completion, optionally of one status or whose name or client contains `q`, a page at a time. Get Request reads one with its fields.",
  output: () => listOutput(requestOutput().partial({ sent: true })),
  permissions: { oauthScopes: ['read_requests'] },
  input: () =>
    z.strictObject({
      q: z.string().trim().min(1).max(255).optional().describe('Only requests whose name contains this text'),
      status: z.enum(requestStatuses).optional().describe('Only requests with this status'),
      ...pagingInput,
    }),
  async run(args, client) {
    const res = await client.request({
      method: 'GET',
      endpoint: 'requests',
      query: {
        ...(args.q === undefined ? {} : { q: args.q }),
        ...(args.status === undefined ? {} : { 'filter_by[statuses][]': args.status }),
        limit: args.limit,
        offset: args.offset,
      },
    });
    return listed(res.data, 'list requests', args.offset, args.limit);
  },
});
