import * as z from 'zod';
import { AppError } from '../../../domain/errors';
import type { ContentSnareClient } from '../client';
import { createdRecord, parseAnswer } from '../schemas';
import { fullRequestOutput } from './read-outputs';
import { contentsnareStep } from './step';

/** Pages read with their fields at most: each is one read of the account's shared limit. */
const maxPages = 10;

const recordIdInput = (what: string) =>
  z
    .string()
    .trim()
    .regex(/^[A-Za-z0-9_-]{1,128}$/, 'must be an id of the collection service, e.g. req_abc123')
    .describe(what);

type Json = Record<string, unknown>;
const pageShape = z.looseObject({
  id: z.union([z.string(), z.number()]),
  sections: z.array(z.looseObject({ fields: z.array(z.looseObject({})).optional() })).optional(),
});

/** A page's fields, each with the name of its section. */
async function fieldsOf(client: ContentSnareClient, pageId: string) {
  const res = await client.request({ method: 'GET', endpoint: `pages/${encodeURIComponent(pageId)}` });
  const page = parseAnswer(pageShape, res.data, `GET /pages/${pageId}`);
  return (page.sections ?? []).flatMap((s) => (s.fields ?? []).map((f) => ({ ...f, section: typeof s.name === 'string' ? s.name : null })));
}

export const getRequest = contentsnareStep({
  id: 'contentsnare.get_request',
  title: 'Get Request',
  toolset: 'contentsnare',
  description: `Reads one request (GET /partner_api/v1/requests/{id}): its status, deadline, client, completion counts and pages, and the fields (with answers and review status) of its first pages (GET /pages/{id}, up to ${maxPages}). What a request_* or field_* trigger's agent reads first.`,
  output: fullRequestOutput,
  permissions: { oauthScopes: ['read_requests'] },
  input: () =>
    z.strictObject({
      request_id: recordIdInput('Id of the request (req_...)'),
      pages: z
        .number()
        .int()
        .min(0)
        .max(maxPages)
        .default(3)
        .describe(`How many of its pages to read with their fields (default 3, at most ${maxPages}; 0: the request alone)`),
    }),
  async run(args, client) {
    const res = await client.request({ method: 'GET', endpoint: `requests/${encodeURIComponent(args.request_id)}` }).catch((e: unknown) => {
      if (e instanceof AppError && e.code === 'not_found') {
        throw new AppError('not_found', `No request with request_id "${args.request_id}" at the collection service`, {
          ...e.details,
          fields: [{ field: 'input.request_id', message: 'no such request' }],
        });
      }
      throw e;
    });
    const request = parseAnswer(createdRecord, res.data, `GET /requests/${args.request_id}`) as Json & { id: string | number };
    const pages = Array.isArray(request.pages) ? (request.pages as Json[]) : [];
    const read = pages.slice(0, args.pages);
    // One page after another: the account's read limit is shared with every other step and the poller.
    const withFields: Json[] = [];
    for (const page of read) withFields.push({ ...page, fields: await fieldsOf(client, String(page.id)) });
    return { ...request, pages: [...withFields, ...pages.slice(read.length)], pages_read: read.length };
  },
});
