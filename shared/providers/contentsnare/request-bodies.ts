/**
 * The agent-facing inputs of the two pre-built steps (the friendly names of docs/tool-steps.md)
 * as the partner API's request bodies (its published reference: clients and requests). Pure functions, so the translation is unit-tested field by field; only fields the
 * reference names ever leave here.
 */

export interface ClientInput {
  name: string;
  email: string;
  company_name?: string;
  first_name?: string;
  last_name?: string;
  phone?: string;
  language_code?: string;
}

/** `POST /clients` body: `name` is the service's `full_name`, a company its `client_companies`. */
export function createClientBody(input: ClientInput): Record<string, unknown> {
  const body: Record<string, unknown> = { full_name: input.name, email: input.email };
  if (input.first_name !== undefined) body.first_name = input.first_name;
  if (input.last_name !== undefined) body.last_name = input.last_name;
  if (input.phone !== undefined) body.phone = input.phone;
  if (input.language_code !== undefined) body.language_code = input.language_code;
  if (input.company_name !== undefined) body.client_companies = [{ name: input.company_name }];
  return body;
}

/** Options of `POST /requests` that go on the wire under the reference's own names. */
export const requestOptionNames = [
  'folder_id',
  'folder_name',
  'owner_id',
  'owner_email',
  'communication_template_id',
  'communication_template_name',
  'comments_enabled',
  'passcode_enabled',
  'share_via_link_enabled',
  'client_phone',
  'company_name',
] as const;

export type RequestOptions = Partial<Record<(typeof requestOptionNames)[number], string | boolean>>;

export interface RequestInput extends RequestOptions {
  name: string;
  template_id?: string;
  template_name?: string;
  due_date?: string;
  client_name?: string;
  send?: boolean;
}

/**
 * `POST /requests` body, for a client already known by e-mail (a `client_id` is looked up
 * first: the API takes no client id on create). `send` (default true) asks for
 * `status: "published"`; otherwise the request stays a `draft` the client cannot see.
 */
export function createRequestBody(input: RequestInput, clientEmail: string): Record<string, unknown> {
  const body: Record<string, unknown> = { name: input.name, client_email: clientEmail };
  if (input.client_name !== undefined) body.client_full_name = input.client_name;
  if (input.template_id !== undefined) body.request_template_id = input.template_id;
  if (input.template_name !== undefined) body.request_template_name = input.template_name;
  if (input.due_date !== undefined) body.due = input.due_date;
  for (const name of requestOptionNames) {
    const value = input[name];
    if (value !== undefined) body[name] = value;
  }
  body.status = input.send === false ? 'draft' : 'published';
  return body;
}
