import * as z from 'zod';
import { endpointProblem } from '../../../http/safe-endpoint';
import { contentsnareStep } from './step';
import { listPage, parseAnswer } from '../schemas';
import { guardManagedHooks, withoutManagedHooks } from '../../../domain/managed-hooks';
import { snareWebhookPaths } from '../managed-webhooks';

/**
 * `contentsnare.api_call`: any partner-API call the pre-built steps do not cover. The
 * endpoint is a path under `/partner_api/v1/` (written `clients`, `/clients` or
 * `/partner_api/v1/clients`, all the same); the connection's token is applied and there
 * is no `headers` input at all (the spec: no manual authorization header), so a caller's
 * `headers` is refused rather than silently dropped. Reads (GET) and writes count against
 * the account's two limits.
 */
const input = () =>
  z
    .strictObject({
      method: z.enum(['GET', 'POST', 'PUT', 'PATCH', 'DELETE']).describe('HTTP method; GET counts as a read, the others as writes'),
      endpoint: z
        .string()
        .superRefine((v, ctx) => {
          const problem = endpointProblem(v);
          if (problem) ctx.addIssue({ code: 'custom', message: problem });
        })
        .describe('Path under /partner_api/v1/, e.g. requests, clients/{id} or /partner_api/v1/requests/{id}; absolute URLs are refused'),
      query: z
        .record(z.string(), z.union([z.string(), z.number(), z.boolean()]))
        .optional()
        .describe('Query parameters, e.g. {limit, offset}'),
      body: z.record(z.string(), z.json()).optional().describe('JSON object request body'),
      dryRun: z.boolean().optional().describe('Describe the request instead of sending it'),
    })
    .superRefine((v, ctx) => {
      if (v.method === 'GET' && v.body !== undefined)
        ctx.addIssue({ code: 'custom', path: ['body'], message: 'a GET request cannot carry a body; use query' });
    });

export const apiCall = contentsnareStep({
  id: 'contentsnare.api_call',
  title: 'API Call',
  toolset: 'contentsnare',
  description:
    "Call any endpoint of the collection service's partner API (/partner_api/v1/) with the connected account, e.g. list requests, get a client, read a request's status. The token is applied automatically and cannot be overridden; calls wait for the account's rate limits (50 reads, 20 writes per 10 s). The webhook this product registered for its triggers is refused (managed_hook) and left out of webhook listings.",
  output: () =>
    z.object({
      status: z.number().int().describe('The HTTP status of the answer (errors answer ok:false)'),
      headers: z.record(z.string(), z.string()).optional().describe('content-type, location, retry-after, ...'),
      data: z.unknown().describe('Parsed JSON, text, or null; list endpoints answer {pagination, results}'),
    }),
  permissions: {
    oauthScopes: [],
    note: 'Whatever the endpoint needs (read_requests for GET requests, write_clients for POST clients, ...)',
  },
  input,
  destructive: true,
  async run(args, client, ctx) {
    const url = client.url(args.endpoint, args.query);
    // The product's own webhook is refused, even to a dry run; a listing leaves it out.
    const relative = url.pathname.slice(new URL(client.base).pathname.replace(/\/+$/, '').length);
    const hooks = await guardManagedHooks(snareWebhookPaths, ctx.managedHookIds, args.method, relative);
    if (args.dryRun) return { dryRun: true, request: { method: args.method, url: url.toString(), body: args.body ?? null } };
    const { method, endpoint, query, body } = args;
    const res = await client.request({ method, endpoint, query, body });
    // Lists promise `{pagination, results}`: hold an answer that claims to be one to it.
    if (res.data !== null && typeof res.data === 'object' && 'results' in res.data)
      parseAnswer(listPage, res.data, `${method} ${endpoint}`);
    if (hooks === 'list' && ctx.managedHookIds) return { ...res, data: await withoutManagedHooks(res.data, ctx.managedHookIds) };
    return res;
  },
});
