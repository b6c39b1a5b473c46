import { randomBytes } from 'node:crypto';
import type { Answer, Json } from './simulated-contentsnare-answer';
import { SimulatedSnareWebhooks, type SimulatedWebhook } from './simulated-contentsnare-webhooks';

/**
 * The partner API's documented endpoints as state and rules, written from the service's
 * published reference (docs/tool-steps.md, "How they are tested"), never from our client:
 * - request body fields and query parameters are the reference's own; a field or parameter
 *   it does not name, or one of the wrong JSON type, is a PROBLEM: recorded (tests assert
 *   `problems` is empty) and answered 422 naming it, so a wrong client fails loudly;
 * - validation the reference documents is enforced: a client needs `email` and `full_name`
 *   (422), a request needs `name`, `client_email` (+ `client_full_name` for a new client)
 *   and one of `request_template_id` / `request_template_name`; `due` is `yyyy-mm-dd`;
 *   a request is a `draft` unless created with `status: "published"`;
 * - answers: the bare resource (200), lists as `{pagination, results}` with `limit`
 *   (default 200) and `offset`, errors as `{errors: [strings]}`, an existing e-mail on
 *   client create as `errors: ["already_invited"]`.
 * Documented endpoints this simulation leaves out answer 501 (no problem recorded); a path
 * the reference does not document answers 404 and is a problem.
 */

export type { Answer, Json } from './simulated-contentsnare-answer';

type FieldType = 'string' | 'boolean' | 'date' | 'array' | 'string|null' | 'any';

/** Body fields the reference names for each write, with their JSON types. */
const bodies: Record<string, Record<string, FieldType>> = {
  'POST /clients': {
    email: 'string',
    full_name: 'string',
    first_name: 'string',
    last_name: 'string',
    phone: 'string',
    language_code: 'string',
    client_companies: 'array',
  },
  'POST /requests': {
    name: 'string',
    client_email: 'string',
    client_full_name: 'string',
    client_phone: 'string',
    company_name: 'string',
    request_template_id: 'string',
    request_template_name: 'string',
    due: 'date',
    status: 'string',
    folder_id: 'string',
    folder_name: 'string',
    owner_id: 'string',
    owner_email: 'string',
    communication_template_id: 'string',
    communication_template_name: 'string',
    comments_enabled: 'boolean',
    passcode_enabled: 'boolean',
    share_via_link_enabled: 'boolean',
    updated_at: 'date',
    pages_data: 'array',
  },
  'PUT /requests/{id}': {
    name: 'string',
    due: 'date',
    status: 'string',
    folder_id: 'string',
    folder_name: 'string',
    owner_id: 'string',
    owner_email: 'string',
    instruction_text: 'string',
    show_instruction: 'boolean',
    communication_template_id: 'string|null',
    communication_template_name: 'string|null',
    comments_enabled: 'boolean',
    passcode_enabled: 'boolean',
    share_via_link_enabled: 'boolean',
    updated_at: 'date',
    client_assignments_ids: 'array',
  },
};
bodies['PUT /clients/{id}'] = bodies['POST /clients'] as Record<string, FieldType>;
// Webhooks (simulated-contentsnare-webhooks.ts): the reference's body fields.
bodies['POST /webhooks'] = { url: 'string', enabled: 'boolean', subscriptions: 'array' };
bodies['PUT /webhooks/{id}'] = { url: 'string', enabled: 'boolean', subscriptions: 'array' };

const paging = ['limit', 'offset'];
const searching = ['q', 'q_by[]', 'sort_by', 'sort_direction', ...paging];
/** Query parameters the reference names for each read. */
const queries: Record<string, string[]> = {
  'GET /me': [],
  'GET /clients': ['include_external', ...searching],
  'GET /clients/{id}': [],
  'GET /client_companies': searching,
  'GET /requests': ['filter_by[statuses][]', 'expand[]', ...searching],
  'GET /requests/{id}': [],
  'GET /request_templates': paging,
  'GET /page_templates': paging,
  'GET /section_templates': paging,
  'GET /folders': paging,
  'GET /communication_templates': paging,
  'GET /team_members': searching,
  'GET /team_members/{id}': [],
  'GET /webhooks': paging,
  'GET /webhooks/{id}': [],
  'GET /pages/{id}': ['include_internal_fields'],
};

/** Documented, but not simulated here (501). */
const unsimulated = new Set([
  'POST /pages',
  'POST /sections',
  'PUT /fields/{id}/review',
  'PUT /requests/{id}/approve_all_submitted_fields',
  'PUT /pages/{id}/approve_all_submitted_fields',
  'PUT /sections/{id}/approve_all_submitted_fields',
  'PUT /requests/{id}/submit_all_fields',
  'PUT /pages/{id}/submit_all_fields',
  'PUT /sections/{id}/submit_all_fields',
  'PUT /requests/{id}/run_integration_actions',
  'POST /team_members',
  'PUT /team_members/{id}',
  'DELETE /team_members/{id}',
]);

/** Records the simulated service starts with: templates, folders, schedules and team members to refer to. */
export const simulatedSnareSeed = {
  requestTemplates: [
    { id: 'tpl_1', name: 'Onboarding', description: 'New client onboarding' },
    { id: 'tpl_2', name: 'Tax return documents', description: 'Year-end paperwork' },
  ],
  folders: [{ id: 'fol_1', name: 'Clients 2026' }],
  communicationTemplates: [{ id: 'com_1', name: 'Standard reminders', description: 'Every 3 days until done' }],
  teamMembers: [
    {
      id: 'usr_1',
      full_name: 'Olivia Owner',
      email: 'olivia@agency.example',
      phone: null,
      avatar: null,
      company_name: 'Agency',
      role: 'admin',
      active: true,
    },
  ],
};

/** The documented `GET /me` answer: the reference lists only `full_name`. */
export const defaultMe: Json = { full_name: 'Simulated Snare Admin' };

/** The records of the simulated service as its state file keeps them. */
export interface SnareSnapshot {
  seq: number;
  clients: Json[];
  requests: Json[];
  companies: Json[];
  folders: Json[];
  /** The webhooks registered (absent in files written before they were kept). */
  hooks?: SimulatedWebhook[];
}

export interface SimulatedSnareState {
  clients: Map<string, Json>;
  requests: Map<string, Json>;
  /** Answer of `GET /me` (per token when a function). */
  me: Json | ((token: string) => Json);
}

const isDate = (v: unknown): v is string => {
  if (typeof v !== 'string' || !/^\d{4}-\d{2}-\d{2}$/.test(v)) return false;
  const d = new Date(`${v}T00:00:00Z`);
  return !Number.isNaN(d.getTime()) && d.toISOString().slice(0, 10) === v;
};

function typeOk(type: FieldType, v: unknown): boolean {
  switch (type) {
    case 'string':
      return typeof v === 'string';
    case 'string|null':
      return typeof v === 'string' || v === null;
    case 'boolean':
      return typeof v === 'boolean';
    case 'date':
      return typeof v === 'string';
    case 'array':
      return Array.isArray(v);
    default:
      return true;
  }
}

const blank = (v: unknown) => v === undefined || v === null || (typeof v === 'string' && v.trim() === '');
const hex = () => randomBytes(6).toString('hex');

export class SimulatedSnareApi {
  readonly problems: string[] = [];
  readonly state: SimulatedSnareState = { clients: new Map(), requests: new Map(), me: defaultMe };
  private readonly companies = new Map<string, Json>();
  private readonly folders: Json[] = simulatedSnareSeed.folders.map((f) => ({ ...f }));
  private seq = 0;
  /** Webhooks, deliveries, pages and fields. */
  readonly webhooks: SimulatedSnareWebhooks;

  constructor(private readonly now: () => number) {
    this.webhooks = new SimulatedSnareWebhooks(
      this.state.requests,
      this.state.clients,
      now,
      (p) => this.nextId(p),
      (t) => this.problem(t),
    );
  }

  /** What the service holds, as plain data (the sandbox keeps it across restarts). */
  snapshot(): SnareSnapshot {
    return {
      seq: this.seq,
      clients: [...this.state.clients.values()],
      requests: [...this.state.requests.values()],
      companies: [...this.companies.values()],
      folders: this.folders,
      hooks: [...this.webhooks.hooks.values()],
    };
  }

  restore(s: SnareSnapshot): void {
    const copy = structuredClone(s);
    this.seq = Math.max(this.seq, copy.seq);
    this.state.clients.clear();
    for (const c of copy.clients) this.state.clients.set(String(c.id), c);
    this.state.requests.clear();
    for (const r of copy.requests) this.state.requests.set(String(r.id), r);
    this.companies.clear();
    for (const c of copy.companies) this.companies.set(String(c.id), c);
    this.folders.splice(0, this.folders.length, ...copy.folders);
    this.webhooks.hooks.clear();
    for (const h of copy.hooks ?? []) this.webhooks.hooks.set(h.id, h);
  }

  private problem(text: string): void {
    this.problems.push(text);
  }

  private nextId(prefix: string): string {
    this.seq++;
    return `${prefix}_${this.seq}`;
  }

  /** `METHOD /path` with ids replaced by `{id}`, and the id found (if any). */
  static template(method: string, path: string): { key: string; id?: string } {
    const parts = path.split('/').filter(Boolean);
    const collection = parts[0] ?? '';
    if (parts.length === 1) return { key: `${method} /${collection}` };
    const rest = parts.slice(2).join('/');
    return { key: `${method} /${collection}/{id}${rest ? `/${rest}` : ''}`, id: decodeURIComponent(parts[1] ?? '') };
  }

  handle(method: string, apiPath: string, query: URLSearchParams, body: unknown, token: string): Answer {
    const { key, id } = SimulatedSnareApi.template(method, apiPath);
    const documented =
      key in queries ||
      key in bodies ||
      unsimulated.has(key) ||
      key === 'DELETE /clients/{id}' ||
      key === 'DELETE /requests/{id}' ||
      key === 'DELETE /webhooks/{id}';
    if (!documented) {
      this.problem(`${method} ${apiPath}: not an endpoint of the partner API reference`);
      return { status: 404, body: { errors: ['Not found'] } };
    }
    const errors = [...this.checkQuery(key, query), ...this.checkBody(key, method, body)];
    if (errors.length > 0) return { status: 422, body: { errors } };
    if (unsimulated.has(key)) return { status: 501, body: { errors: [`${key} is documented but not simulated here`] } };
    const input = (body ?? {}) as Json;
    const hooked = this.webhooks.handle(key, id, input, token);
    if (hooked) return hooked;
    switch (key) {
      case 'GET /me':
        return { status: 200, body: typeof this.state.me === 'function' ? this.state.me(token) : this.state.me };
      case 'GET /clients':
        return this.list(this.search([...this.state.clients.values()], query, ['email', 'full_name']), query);
      case 'GET /clients/{id}':
        return this.one(this.state.clients.get(id ?? ''));
      case 'POST /clients':
        return this.createClient(input);
      case 'PUT /clients/{id}':
        return this.updateClient(id ?? '', input);
      case 'DELETE /clients/{id}':
        return this.state.clients.delete(id ?? '') ? { status: 204 } : this.notFound();
      case 'GET /client_companies':
        return this.list(this.search([...this.companies.values()], query, ['name']), query);
      case 'GET /requests':
        return this.listRequests(query);
      case 'GET /requests/{id}':
        return this.one(this.state.requests.get(id ?? ''));
      case 'POST /requests':
        return this.createRequest(input);
      case 'PUT /requests/{id}':
        return this.updateRequest(id ?? '', input);
      case 'DELETE /requests/{id}':
        return this.state.requests.delete(id ?? '') ? { status: 204 } : this.notFound();
      case 'GET /request_templates':
        return this.list(simulatedSnareSeed.requestTemplates, query);
      case 'GET /page_templates':
      case 'GET /section_templates':
      case 'GET /webhooks':
        return this.list([], query);
      case 'GET /folders':
        return this.list(this.folders, query);
      case 'GET /communication_templates':
        return this.list(simulatedSnareSeed.communicationTemplates, query);
      case 'GET /team_members':
        return this.list(this.search(simulatedSnareSeed.teamMembers, query, ['full_name', 'phone']), query);
      case 'GET /team_members/{id}':
        return this.one(simulatedSnareSeed.teamMembers.find((m) => m.id === id));
      default:
        return this.notFound();
    }
  }

  private checkQuery(key: string, query: URLSearchParams): string[] {
    const allowed = queries[key] ?? [];
    const errors: string[] = [];
    for (const name of new Set(query.keys())) {
      if (!allowed.includes(name)) {
        this.problem(`${key}: query parameter "${name}" is not in the reference`);
        errors.push(`unknown parameter: ${name}`);
      }
    }
    for (const name of ['limit', 'offset']) {
      const v = query.get(name);
      if (v !== null && !/^\d+$/.test(v)) errors.push(`${name} must be a non-negative integer`);
    }
    return errors;
  }

  private checkBody(key: string, method: string, body: unknown): string[] {
    const fields = bodies[key];
    if (!fields) {
      if (body !== undefined && method !== 'GET') this.problem(`${key}: a body was sent, but the reference names no body fields`);
      if (body !== undefined && method === 'GET') this.problem(`${key}: a GET with a body`);
      return [];
    }
    if (body === undefined || body === null || typeof body !== 'object' || Array.isArray(body)) {
      if (body !== undefined) this.problem(`${key}: the body is not a JSON object`);
      return body === undefined ? [] : ['body must be a JSON object'];
    }
    const errors: string[] = [];
    for (const [name, value] of Object.entries(body as Json)) {
      const type = fields[name];
      if (!type) {
        this.problem(`${key}: body field "${name}" is not in the reference`);
        errors.push(`unknown field: ${name}`);
      } else if (!typeOk(type, value)) {
        this.problem(`${key}: body field "${name}" should be ${type}, got ${JSON.stringify(value)}`);
        errors.push(`${name} is not a ${type}`);
      }
    }
    return errors;
  }

  private notFound(): Answer {
    return { status: 404, body: { errors: ['Not found'] } };
  }

  private one(record: Json | undefined): Answer {
    return record ? { status: 200, body: record } : this.notFound();
  }

  private list(all: Json[], query: URLSearchParams): Answer {
    const limit = Number(query.get('limit') ?? 200);
    const offset = Number(query.get('offset') ?? 0);
    return { status: 200, body: { pagination: { limit, offset, total_count: all.length }, results: all.slice(offset, offset + limit) } };
  }

  private search(all: Json[], query: URLSearchParams, defaults: string[]): Json[] {
    const q = query.get('q')?.toLowerCase();
    if (!q) return all;
    const by = query.getAll('q_by[]');
    const fields = by.length > 0 ? by : defaults;
    return all.filter((r) =>
      fields.some((f) =>
        String(r[f] ?? '')
          .toLowerCase()
          .includes(q),
      ),
    );
  }

  // ---- clients ---------------------------------------------------------------------------

  private clientByEmail(email: string): Json | undefined {
    const wanted = email.trim().toLowerCase();
    return [...this.state.clients.values()].find((c) => String(c.email).toLowerCase() === wanted);
  }

  private company(name: string): Json {
    const existing = [...this.companies.values()].find((c) => c.name === name);
    if (existing) return existing;
    const created = { id: this.nextId('cmp'), name };
    this.companies.set(String(created.id), created);
    return created;
  }

  private companiesFrom(value: unknown): { companies?: Json[]; error?: string } {
    if (value === undefined) return {};
    const list = value as unknown[];
    const out: Json[] = [];
    for (const item of list) {
      const keys = item && typeof item === 'object' ? Object.keys(item) : [];
      const name = (item as Json | null)?.name;
      if (typeof name !== 'string' || keys.some((k) => k !== 'name')) {
        this.problem(`client_companies: each item is {name}, got ${JSON.stringify(item)}`);
        return { error: 'client_companies items must be {name}' };
      }
      out.push(this.company(name));
    }
    return { companies: out };
  }

  private createClient(input: Json): Answer {
    const errors: string[] = [];
    if (blank(input.email)) errors.push("Email can't be blank");
    else if (!/^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(String(input.email))) errors.push('Email is invalid');
    if (blank(input.full_name)) errors.push("Full name can't be blank");
    const { companies, error } = this.companiesFrom(input.client_companies);
    if (error) errors.push(error);
    if (errors.length > 0) return { status: 422, body: { errors } };
    if (this.clientByEmail(String(input.email))) return { status: 422, body: { errors: ['already_invited'] } };
    const client = this.newClient({ ...input, companies: companies ?? [] });
    this.webhooks.emit(this.webhooks.clientPayload(client, 'client_created'));
    return { status: 200, body: client };
  }

  private newClient(input: Json & { companies: Json[] }): Json {
    const id = this.nextId('acc');
    const companies = input.companies;
    const client: Json = {
      id,
      full_name: input.full_name,
      first_name: input.first_name ?? null,
      last_name: input.last_name ?? null,
      email: input.email,
      phone: input.phone ?? null,
      avatar: null,
      company_name: companies[0]?.name ?? null,
      language_code: input.language_code ?? 'en',
      client_companies: companies,
    };
    this.state.clients.set(id, client);
    return client;
  }

  private updateClient(id: string, input: Json): Answer {
    const client = this.state.clients.get(id);
    if (!client) return this.notFound();
    const { companies, error } = this.companiesFrom(input.client_companies);
    if (error) return { status: 422, body: { errors: [error] } };
    const { client_companies: _ignored, ...rest } = input;
    Object.assign(client, rest);
    if (companies) Object.assign(client, { client_companies: companies, company_name: companies[0]?.name ?? null });
    this.webhooks.emit(this.webhooks.clientPayload(client, 'client_updated'));
    return { status: 200, body: client };
  }

  // ---- requests --------------------------------------------------------------------------

  private createRequest(input: Json): Answer {
    const errors: string[] = [];
    if (blank(input.name)) errors.push("Name can't be blank");
    // The reference: MC-N marks client_email optional, HP-CRF and the MCP client treat it as
    // required. The stricter reading, so a client that forgets it fails here.
    if (blank(input.client_email)) errors.push("Client email can't be blank");
    const existing = blank(input.client_email) ? undefined : this.clientByEmail(String(input.client_email));
    if (!blank(input.client_email) && !existing && blank(input.client_full_name))
      errors.push('client_full_name is required for a new client');
    const usesPages = input.pages_data !== undefined;
    const byId = !blank(input.request_template_id);
    const byName = !blank(input.request_template_name);
    let template: Json | undefined;
    if (!usesPages) {
      if (byId === byName) errors.push('Set request_template_id or request_template_name (one of them)');
      else {
        template = simulatedSnareSeed.requestTemplates.find((t) =>
          byId ? t.id === input.request_template_id : t.name === input.request_template_name,
        );
        if (!template) errors.push('Request template not found');
      }
    }
    errors.push(...this.requestOptionErrors(input));
    if (errors.length > 0) return { status: 422, body: { errors } };

    let client = existing;
    if (!client)
      client = this.newClient({
        email: String(input.client_email).trim(),
        full_name: input.client_full_name,
        phone: input.client_phone,
        companies: [],
      });
    else {
      // Documented: a name or phone given for an existing client overwrites it.
      if (!blank(input.client_full_name)) client.full_name = input.client_full_name;
      if (!blank(input.client_phone)) client.phone = input.client_phone;
    }
    if (!blank(input.company_name)) {
      const companies = (client.client_companies as Json[]) ?? [];
      if (!companies.some((c) => c.name === input.company_name)) {
        companies.push(this.company(String(input.company_name)));
        client.client_companies = companies;
        client.company_name ??= input.company_name;
      }
    }
    const id = this.nextId('req');
    const record: Json = {
      id,
      name: input.name,
      status: input.status ?? 'draft',
      due: input.due === undefined ? null : `${String(input.due)}T00:00:00.000Z`,
      url: `https://app.contentsnare.com/requests/${id}`,
      share_link: `https://app.contentsnare.com/requests/${id}/share/${hex()}`,
      share_via_link_enabled: input.share_via_link_enabled ?? false,
      passcode_enabled: input.passcode_enabled ?? false,
      comments_enabled: input.comments_enabled ?? false,
      has_comments: false,
      language_code: 'en',
      request_template_name: template?.name ?? null,
      primary_client_id: client.id,
      completion_percentage: 0,
      updated_at: new Date(this.now()).toISOString(),
      ...this.folderOwnerSchedule(input),
    };
    const { id: cid, full_name, email, phone, company_name, avatar } = client;
    // The create answer (reference, MC-U): most request fields plus a singular `client` and
    // `client_status`, without the counts and pages that `GET /requests/{id}` adds.
    const answer = { ...record, client: { id: cid, full_name, email, phone, company_name, avatar }, client_status: 'invited' };
    const counts = { fields_count: 0, done_fields_count: 0, approved_fields_count: 0, redo_fields_count: 0, pages: [] };
    this.state.requests.set(id, {
      ...record,
      ...counts,
      clients: [{ id: cid, full_name, email, phone, company_name, avatar, url: record.url }],
    });
    this.webhooks.requestChanged(undefined, this.state.requests.get(id) as Json);
    return { status: 200, body: answer };
  }

  private requestOptionErrors(input: Json): string[] {
    const errors: string[] = [];
    if (input.status !== undefined && input.status !== 'draft' && input.status !== 'published')
      errors.push('status must be draft or published');
    if (input.due !== undefined && !isDate(input.due)) errors.push('due must be a date yyyy-mm-dd');
    if (!blank(input.folder_id) && !this.folders.some((f) => f.id === input.folder_id)) errors.push('Folder not found');
    if (!blank(input.owner_id) && !simulatedSnareSeed.teamMembers.some((m) => m.id === input.owner_id)) errors.push('Owner not found');
    if (!blank(input.owner_email) && !simulatedSnareSeed.teamMembers.some((m) => m.email === input.owner_email))
      errors.push('Owner not found');
    const schedules = simulatedSnareSeed.communicationTemplates;
    if (typeof input.communication_template_id === 'string' && !schedules.some((s) => s.id === input.communication_template_id)) {
      errors.push('Communication template not found');
    }
    if (
      typeof input.communication_template_name === 'string' &&
      input.communication_template_name !== 'None' &&
      !schedules.some((s) => s.name === input.communication_template_name)
    ) {
      errors.push('Communication template not found');
    }
    return errors;
  }

  private folderOwnerSchedule(input: Json): Json {
    const out: Json = {};
    let folder = this.folders.find((f) => f.id === input.folder_id);
    if (!folder && typeof input.folder_name === 'string') {
      // Inf in the reference: a folder named on create may be created on the fly.
      folder = this.folders.find((f) => f.name === input.folder_name) ?? { id: this.nextId('fol'), name: input.folder_name };
      if (!this.folders.includes(folder)) this.folders.push(folder);
    }
    if (folder || 'folder_id' in input || 'folder_name' in input) out.folder_name = folder?.name ?? null;
    const owner = simulatedSnareSeed.teamMembers.find((m) => m.id === input.owner_id || m.email === input.owner_email);
    if (owner || 'owner_id' in input || 'owner_email' in input)
      Object.assign(out, { owner_id: owner?.id ?? null, owner_name: owner?.full_name ?? null });
    const schedule = simulatedSnareSeed.communicationTemplates.find(
      (s) => s.id === input.communication_template_id || s.name === input.communication_template_name,
    );
    if (schedule || 'communication_template_id' in input || 'communication_template_name' in input)
      out.communications_template_name = schedule?.name ?? null;
    return out;
  }

  private updateRequest(id: string, input: Json): Answer {
    const record = this.state.requests.get(id);
    if (!record) return this.notFound();
    // The reference: an update may also complete or archive the request (create takes draft or published only).
    const errors = this.requestOptionErrors(input).filter((e) => e !== 'status must be draft or published');
    if (input.status !== undefined && !['draft', 'published', 'completed', 'archived'].includes(String(input.status)))
      errors.push('status is not valid');
    if (errors.length > 0) return { status: 422, body: { errors: [...new Set(errors)] } };
    const {
      due,
      client_assignments_ids: _assign,
      folder_id: _f,
      folder_name: _fn,
      owner_id: _o,
      owner_email: _oe,
      communication_template_id: _c,
      communication_template_name: _cn,
      ...rest
    } = input;
    const before = { ...record };
    Object.assign(record, rest, this.folderOwnerSchedule(input), { updated_at: new Date(this.now()).toISOString() });
    if (due !== undefined) record.due = `${String(due)}T00:00:00.000Z`;
    this.webhooks.requestChanged(before, record);
    return { status: 200, body: record };
  }

  private listRequests(query: URLSearchParams): Answer {
    const statuses = query.getAll('filter_by[statuses][]');
    const expand = new Set(query.getAll('expand[]'));
    let all = [...this.state.requests.values()];
    if (statuses.length > 0) all = all.filter((r) => statuses.includes(String(r.status)));
    all = this.search(all, query, ['name']);
    const sortBy = query.get('sort_by');
    if (sortBy) {
      const dir = query.get('sort_direction') === 'desc' ? -1 : 1;
      all = [...all].sort((a, b) => dir * String(a[sortBy] ?? '').localeCompare(String(b[sortBy] ?? '')));
    }
    const items = all.map((r) => {
      const item: Json = {
        id: r.id,
        name: r.name,
        status: r.status,
        due: r.due,
        completion_percentage: r.completion_percentage,
        primary_client_id: r.primary_client_id,
        updated_at: r.updated_at,
      };
      if (expand.has('request_template_name')) item.request_template_name = r.request_template_name;
      if (expand.has('owner_name')) item.owner_name = r.owner_name ?? null;
      if (expand.has('clients')) item.clients = r.clients;
      return item;
    });
    return this.list(items, query);
  }
}
