import * as z from 'zod';
import { AppError } from '../../../domain/errors';
import { calendarDate } from '../calendar-date';
import { requestOutput } from './outputs';
import { contentsnareStep } from './step';
import { createRequestBody } from '../request-bodies';
import { clientRecord, parseAnswer, requestRecord } from '../schemas';

const text = (max: number, what: string) => z.string().trim().min(1).max(max).describe(what);
/** Ids of the partner API are opaque strings (`acc_...`); a client id goes into a path, so only safe characters. */
const recordId = (what: string) =>
  z
    .string()
    .trim()
    .regex(/^[A-Za-z0-9_-]{1,128}$/, 'must be an id of the collection service, e.g. acc_abc123')
    .describe(what);

/** Pairs of which exactly one (`required`) or at most one may be given. */
const pairs: Array<{ names: [string, string]; required: boolean; what: string }> = [
  {
    names: ['client_id', 'client_email'],
    required: true,
    what: 'the client: client_id (an existing client) or client_email (found, or created with client_name)',
  },
  { names: ['template_id', 'template_name'], required: true, what: 'the request template: template_id or template_name' },
  { names: ['folder_id', 'folder_name'], required: false, what: 'the folder' },
  { names: ['owner_id', 'owner_email'], required: false, what: 'the owner (a team member)' },
  { names: ['communication_template_id', 'communication_template_name'], required: false, what: 'the communications schedule' },
];

/**
 * Input: the friendly names for the client, template and deadline (docs/tool-steps.md); the reference's
 * own names for the documented options. Strict (an unknown field is refused naming it);
 * the pair rules below say which inputs exclude each other. On the wire: request-bodies.ts.
 */
const input = () =>
  z
    .strictObject({
      name: text(255, 'Title of the request'),
      client_id: recordId('Id of an existing client (acc_..., from Create Client); its e-mail is looked up (one read)').optional(),
      client_email: z
        .email()
        .max(320)
        .describe("The client's e-mail: an existing client is found by it, otherwise a new one is created (then give client_name)")
        .optional(),
      client_name: text(
        255,
        'Full name of a NEW client named by client_email (sent as client_full_name); for an existing client it overwrites the name',
      ).optional(),
      client_phone: text(50, "The client's phone (sent as client_phone; overwrites an existing client's phone)").optional(),
      company_name: text(255, 'A company linked to the client (created if it is not linked yet)').optional(),
      template_id: recordId('Id of the request template the request is built from (sent as request_template_id)').optional(),
      template_name: text(255, 'Name of the request template (sent as request_template_name)').optional(),
      due_date: calendarDate.optional().describe('Deadline, a calendar date YYYY-MM-DD (sent as due)'),
      folder_id: recordId('Folder to file the request in, by id').optional(),
      folder_name: text(255, 'Folder to file the request in, by name').optional(),
      owner_id: recordId('Owning team member, by id').optional(),
      owner_email: z.email().max(320).describe('Owning team member, by e-mail').optional(),
      communication_template_id: recordId('Communications (reminder) schedule, by id').optional(),
      communication_template_name: text(255, 'Communications (reminder) schedule, by name').optional(),
      comments_enabled: z.boolean().optional().describe('Let the client comment on fields'),
      passcode_enabled: z.boolean().optional().describe('The client sets a PIN on first access'),
      share_via_link_enabled: z.boolean().optional().describe('Anyone with the share link may open it without logging in'),
      send: z
        .boolean()
        .optional()
        .describe('Send (publish) the request to the client: default true; false leaves it a draft the client cannot see'),
    })
    .superRefine((v, ctx) => {
      const given = v as Record<string, unknown>;
      for (const { names, required, what } of pairs) {
        const present = names.filter((n) => given[n] !== undefined);
        if (present.length === 2) {
          ctx.addIssue({ code: 'custom', path: [names[1]], message: `give either ${names[0]} or ${names[1]} for ${what}, not both` });
        } else if (required && present.length === 0) {
          ctx.addIssue({ code: 'custom', path: [names[0]], message: `is required: give ${what}` });
        }
      }
      if (v.client_name !== undefined && v.client_id !== undefined) {
        ctx.addIssue({
          code: 'custom',
          path: ['client_name'],
          message: 'goes with client_email (the full name of a new client); client_id names an existing client',
        });
      }
    })
    .meta({
      // The pair rules, for the catalog's JSON Schema (zod's refinement is not representable).
      allOf: [
        { oneOf: [{ required: ['client_id'] }, { required: ['client_email'] }] },
        { oneOf: [{ required: ['template_id'] }, { required: ['template_name'] }] },
        { not: { required: ['client_id', 'client_name'] } },
        { not: { required: ['folder_id', 'folder_name'] } },
        { not: { required: ['owner_id', 'owner_email'] } },
        { not: { required: ['communication_template_id', 'communication_template_name'] } },
      ],
    })
    .describe(
      'A request from a template for one client. Exactly one of client_id / client_email and one of template_id / template_name; at most one of each other *_id / *_name (or *_email) pair. Unknown fields are refused.',
    );

export const createRequest = contentsnareStep({
  id: 'contentsnare.create_request',
  title: 'Create Request',
  toolset: 'contentsnare',
  description:
    'Create an information-collection request from a template and send it to a client (POST /partner_api/v1/requests with status "published"), or leave it a draft with send: false. The client is given by client_id (its e-mail is read with GET /partner_api/v1/clients/{id}, one read) or by client_email (+ client_name for a new client); the template by template_id or template_name; optional deadline (due_date), folder, owner, communications schedule, comments, passcode and link sharing.',
  output: requestOutput,
  // read_clients for a client given by id; write_clients when client_email is a new client.
  permissions: { oauthScopes: ['write_requests', 'read_clients', 'write_clients'] },
  input,
  async run(args, client) {
    let email = args.client_email;
    if (email === undefined) {
      const id = args.client_id ?? '';
      const res = await client.request({ method: 'GET', endpoint: `clients/${encodeURIComponent(id)}` }).catch((e: unknown) => {
        if (e instanceof AppError && e.code === 'not_found') {
          throw new AppError('not_found', `No client with client_id "${id}" at the collection service`, {
            ...e.details,
            fields: [{ field: 'input.client_id', message: 'no such client' }],
          });
        }
        throw e;
      });
      email = parseAnswer(clientRecord, res.data, `get client ${id}`).email;
    }
    const res = await client.request({ method: 'POST', endpoint: 'requests', body: createRequestBody(args, email) });
    const record = parseAnswer(requestRecord, res.data, 'create request');
    // Only a published request reaches the client: a draft or a scheduled one has not been sent.
    return { ...record, status: record.status, sent: record.status === 'published' };
  },
});
