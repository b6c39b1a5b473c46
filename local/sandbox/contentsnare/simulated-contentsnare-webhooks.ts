import type { Answer, Json } from './simulated-contentsnare-answer';

/**
 * The partner API's webhooks, and the pages and fields of requests, as the reference
 * describes them (never from our client code):
 * - `POST /webhooks` {url (required), enabled, subscriptions[]} answers the webhook object
 *   `{id, url, enabled, subscriptions, type}`; `PUT /webhooks/{id}` needs `url` too (the
 *   reference marks it required on update) and answers 422 without it; `DELETE` answers 204;
 *   an unknown id is 404. Event names outside the reference's list are 422.
 * - Webhooks need the `administration` scope, and only an Admin may manage them: a token
 *   granted without the scope, or of a user who is not an Admin, is refused (403 by
 *   default; `refusalStatus` makes it 401, which the reference does not rule out).
 * - Deliveries: an HTTP POST of a flat JSON body with `event_name` and the record's `id`
 *   (request, client and field shapes of the help pages' payload examples), unsigned, with
 *   no delivery id, to every enabled webhook subscribed to the event.
 * - `GET /pages/{id}`: the page with its sections and fields; fields change status through
 *   `setFieldStatus` (as the client and reviewers would), which keeps the request's counts.
 */

/** The reference's event names a webhook may subscribe to (its "Event names" list). */
export const referenceEventNames = new Set([
  'request_created',
  'request_updated',
  'request_destroyed',
  'request_draft',
  'request_published',
  'request_completed',
  'request_archived',
  'request_reopened',
  'request_viewed',
  'request_board_column_changed',
  'request_create_failed',
  'request_update_failed',
  'request_destroy_failed',
  'request_published_failed',
  'request_completed_failed',
  'request_archived_failed',
  'request_board_column_change_failed',
  'request_reopen_failed',
  'all_fields_completed',
  'page_completed',
  'section_completed',
  'field_completed',
  'field_approved',
  'field_rejected',
  'comment_created',
  'internal_comment_created',
  'comment_create_failed',
  'client_created',
  'client_updated',
  'client_destroyed',
  'client_create_failed',
  'client_update_failed',
  'client_destroy_failed',
  'client_portal_viewed',
  'client_portal_group_created',
  'client_portal_group_updated',
  'client_portal_group_destroyed',
  'email_delivered',
  'email_bounced',
  'email_spam_complained',
  'integration_action_succeeded',
  'integration_action_failed',
  'recurring_request_created',
  'recurring_request_executed',
  'recurring_request_completed',
  'recurring_request_destroyed',
  'recurring_request_failed',
  'product_item_used',
  'product_item_returned',
  'product_item_exhausted',
  'product_item_manual_purchase',
  'product_item_auto_purchase',
  'product_item_purchase_failed',
]);

/** What a token was granted: its scopes and its user's role (absent: every scope, an Admin). */
export interface SnareGrant {
  scopes?: string[];
  role?: 'admin' | 'editor' | 'reviewer' | 'viewer';
}

export interface SimulatedWebhook {
  id: string;
  url: string;
  enabled: boolean;
  subscriptions: string[];
  type: string;
}

export interface SentDelivery {
  url: string;
  body: Json;
  status: number;
}

/** Posts one delivery; answers the receiver's status (0 when it could not be reached). */
export type DeliverFn = (url: string, body: Json) => Promise<number>;

const defaultDeliver: DeliverFn = async (url, body) => {
  try {
    const res = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
      redirect: 'manual',
      signal: AbortSignal.timeout(10_000),
    });
    await res.arrayBuffer().catch(() => undefined);
    return res.status;
  } catch {
    return 0;
  }
};

export class SimulatedSnareWebhooks {
  readonly hooks = new Map<string, SimulatedWebhook>();
  readonly pages = new Map<string, Json>();
  readonly grants = new Map<string, SnareGrant>();
  readonly sent: SentDelivery[] = [];
  refusalStatus: 401 | 403 = 403;
  /** Replace to drop, delay or copy deliveries (the outside checks do). */
  deliver: DeliverFn = defaultDeliver;
  private readonly pending = new Set<Promise<unknown>>();

  constructor(
    private readonly requests: Map<string, Json>,
    private readonly clients: Map<string, Json>,
    private readonly now: () => number,
    private readonly nextId: (prefix: string) => string,
    private readonly problem: (text: string) => void,
  ) {}

  /** Answers the webhook and page endpoints; undefined for any other. */
  handle(key: string, id: string | undefined, input: Json, token: string): Answer | undefined {
    if (key.startsWith('GET /pages/')) {
      const page = this.pages.get(id ?? '');
      return page ? { status: 200, body: page } : { status: 404, body: { errors: ['Not found'] } };
    }
    if (!key.includes(' /webhooks')) return undefined;
    const grant = this.grants.get(token) ?? {};
    if (grant.scopes !== undefined && !grant.scopes.includes('administration'))
      return { status: 403, body: { errors: ['The access token does not have the administration scope'] } };
    if (grant.role !== undefined && grant.role !== 'admin')
      return { status: this.refusalStatus, body: { errors: ['Only admins can manage webhooks'] } };
    switch (key) {
      case 'GET /webhooks':
        return {
          status: 200,
          body: { pagination: { limit: 200, offset: 0, total_count: this.hooks.size }, results: [...this.hooks.values()] },
        };
      case 'GET /webhooks/{id}': {
        const hook = this.hooks.get(id ?? '');
        return hook ? { status: 200, body: hook } : { status: 404, body: { errors: ['Not found'] } };
      }
      case 'POST /webhooks':
        return this.save(undefined, input);
      case 'PUT /webhooks/{id}':
        return this.hooks.has(id ?? '') ? this.save(id, input) : { status: 404, body: { errors: ['Not found'] } };
      case 'DELETE /webhooks/{id}':
        return this.hooks.delete(id ?? '') ? { status: 204 } : { status: 404, body: { errors: ['Not found'] } };
      default:
        return undefined;
    }
  }

  private save(id: string | undefined, input: Json): Answer {
    const errors: string[] = [];
    if (typeof input.url !== 'string' || !/^https?:\/\//.test(input.url)) errors.push("Url can't be blank");
    const subscriptions = input.subscriptions === undefined ? [] : (input.subscriptions as unknown[]);
    for (const s of subscriptions) {
      if (typeof s !== 'string' || !referenceEventNames.has(s)) {
        this.problem(`webhook subscription ${JSON.stringify(s)} is not an event name of the reference`);
        errors.push(`Unknown event: ${String(s)}`);
      }
    }
    if (errors.length > 0) return { status: 422, body: { errors } };
    const hook: SimulatedWebhook = {
      id: id ?? this.nextId('whk'),
      url: input.url as string,
      enabled: input.enabled === undefined ? (this.hooks.get(id ?? '')?.enabled ?? true) : input.enabled === true,
      subscriptions: subscriptions as string[],
      type: 'custom',
    };
    this.hooks.set(hook.id, hook);
    return { status: 200, body: hook };
  }

  // ---- deliveries --------------------------------------------------------------------------

  /** Sends `body` to every enabled webhook subscribed to its event (in the background; `settled` waits). */
  emit(body: Json): void {
    const event = String(body.event_name);
    for (const hook of this.hooks.values()) {
      if (!hook.enabled || !hook.subscriptions.includes(event)) continue;
      const sending = this.deliver(hook.url, body).then((status) => {
        this.sent.push({ url: hook.url, body, status });
      });
      this.pending.add(sending);
      void sending.finally(() => this.pending.delete(sending));
    }
  }

  /** Waits for every delivery sent so far. */
  async settled(): Promise<void> {
    while (this.pending.size > 0) await Promise.allSettled([...this.pending]);
  }

  requestPayload(request: Json, event: string): Json {
    const client = this.clients.get(String(request.primary_client_id)) ?? {};
    const body: Json = {
      id: request.id,
      event_name: event,
      name: request.name,
      status: request.status,
      due_date: typeof request.due === 'string' ? request.due.slice(0, 10) : null,
      url: request.url,
      folder_name: request.folder_name ?? null,
      request_template_name: request.request_template_name ?? null,
      communications_template_name: request.communications_template_name ?? null,
      // Newer payload examples carry numbers as strings.
      completion_percentage: String(request.completion_percentage ?? 0),
      owner_name: request.owner_name ?? null,
      author_name: request.author_name ?? null,
      client: clientPart(client),
    };
    if (event === 'request_updated' || event === 'request_published')
      Object.assign(body, { share_link: request.share_link, pin_code_enabled: String(request.passcode_enabled === true), pin_code: null });
    return body;
  }

  clientPayload(client: Json, event: string): Json {
    return { ...clientPart(client), event_name: event };
  }

  /** After a request changed status (create or update): the events the service sends for it. */
  requestChanged(before: Json | undefined, after: Json): void {
    const was = before?.status;
    const now = after.status;
    if (!before) this.emit(this.requestPayload(after, 'request_created'));
    else this.emit(this.requestPayload(after, 'request_updated'));
    if (was === now) return;
    if (now === 'published' && was === 'completed') this.emit(this.requestPayload(after, 'request_reopened'));
    else if (now === 'published') this.emit(this.requestPayload(after, 'request_published'));
    if (now === 'completed') this.emit(this.requestPayload(after, 'request_completed'));
    if (now === 'archived') this.emit(this.requestPayload(after, 'request_archived'));
    if (now === 'draft') this.emit(this.requestPayload(after, 'request_draft'));
  }

  /** The client opened the request through its link. */
  viewRequest(requestId: string): boolean {
    const request = this.requests.get(requestId);
    if (!request) return false;
    this.emit(this.requestPayload(request, 'request_viewed'));
    return true;
  }

  /** Adds a page of fields to a request (as a page template would). */
  addPage(requestId: string, name: string, fields: Array<{ name: string; type?: string }>): Json | undefined {
    const request = this.requests.get(requestId);
    if (!request) return undefined;
    const page: Json = {
      id: this.nextId('pag'),
      name,
      sorting_position: ((request.pages as Json[]) ?? []).length,
      is_done: false,
      is_approved: false,
      sections: [
        {
          id: this.nextId('sec'),
          name,
          sorting_position: 0,
          fields: fields.map((f, i) => ({
            id: this.nextId('fld'),
            name: f.name,
            type: f.type ?? 'text',
            status: 'todo',
            required: true,
            instruction_text: null,
            sorting_position: i,
            values: [],
            values_flat: '',
            rejection_message: { text: null },
          })),
        },
      ],
    };
    this.pages.set(String(page.id), page);
    request.pages = [...((request.pages as Json[]) ?? []), { id: page.id, name }];
    this.recount(request);
    return page;
  }

  /** A field changes status (`done` by the client, `approved`/`redo` in review, `todo`), with the events the service sends. */
  setFieldStatus(fieldId: string, status: 'todo' | 'done' | 'approved' | 'redo', value?: string, rejection?: string): boolean {
    for (const page of this.pages.values()) {
      for (const section of page.sections as Json[]) {
        const field = (section.fields as Json[]).find((f) => f.id === fieldId);
        if (!field) continue;
        const request = [...this.requests.values()].find((r) => ((r.pages as Json[]) ?? []).some((p) => p.id === page.id));
        if (!request) return false;
        const allBefore = allDone(request);
        field.status = status;
        if (value !== undefined) Object.assign(field, { values: [value], values_flat: value });
        if (status === 'redo') field.rejection_message = { text: rejection ?? 'Please change this' };
        this.recount(request);
        const event =
          status === 'done'
            ? 'field_completed'
            : status === 'approved'
              ? 'field_approved'
              : status === 'redo'
                ? 'field_rejected'
                : undefined;
        if (event)
          this.emit({
            id: field.id,
            event_name: event,
            name: field.name,
            type: field.type,
            status: field.status,
            instruction_text: field.instruction_text ?? null,
            values: field.values,
            values_flat: field.values_flat,
            page_id: page.id,
            page_name: page.name,
            section_id: section.id,
            section_name: section.name,
            request: this.requestPayload(request, event),
          });
        if (!allBefore && allDone(request)) this.emit(this.requestPayload(request, 'all_fields_completed'));
        return true;
      }
    }
    return false;
  }

  /** A client comments on a request (or one of its fields). */
  addComment(requestId: string, text: string, fieldId?: string): boolean {
    const request = this.requests.get(requestId);
    if (!request) return false;
    request.has_comments = true;
    const page = fieldId
      ? [...this.pages.values()].find((p) => (p.sections as Json[]).some((s) => (s.fields as Json[]).some((f) => f.id === fieldId)))
      : undefined;
    this.emit({
      id: this.nextId('com'),
      event_name: 'comment_created',
      text,
      ...(fieldId && page ? { field_id: fieldId, page_id: page.id } : {}),
      request: this.requestPayload(request, 'comment_created'),
    });
    return true;
  }

  private recount(request: Json): void {
    const fields = ((request.pages as Json[]) ?? []).flatMap((p) =>
      ((this.pages.get(String(p.id))?.sections as Json[]) ?? []).flatMap((s) => s.fields as Json[]),
    );
    const count = (pred: (f: Json) => boolean) => fields.filter(pred).length;
    request.fields_count = fields.length;
    request.done_fields_count = count((f) => f.status === 'done' || f.status === 'approved');
    request.approved_fields_count = count((f) => f.status === 'approved');
    request.redo_fields_count = count((f) => f.status === 'redo');
    request.completion_percentage = fields.length === 0 ? 0 : Math.round((100 * Number(request.done_fields_count)) / fields.length);
    request.updated_at = new Date(this.now()).toISOString();
  }
}

function allDone(request: Json): boolean {
  const n = Number(request.fields_count ?? 0);
  return n > 0 && Number(request.done_fields_count ?? 0) >= n;
}

function clientPart(client: Json): Json {
  return {
    id: client.id ?? null,
    full_name: client.full_name ?? null,
    email: client.email ?? null,
    phone: client.phone ?? null,
    company_name: client.company_name ?? null,
    avatar: client.avatar ?? null,
  };
}
