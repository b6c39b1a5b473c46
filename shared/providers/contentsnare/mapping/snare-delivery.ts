import * as z from 'zod';
import { snareTriggerRows, type SnareSubject } from '../triggers/rows';
import { snareTriggerNames, type SnareTriggerName } from '../../../domain/triggers';

/**
 * What a collection-service delivery claims, read only for WHERE to look: its event name
 * and the ids of the records it names. Nothing else in the body is believed: the records are
 * read back through the API (shared/providers/contentsnare/read-back.ts). The reference's payloads are
 * flat objects with `event_name` and the subject's `id`; field events nest the `request`
 * and carry `page_id`; values may be strings where numbers are expected (ids were `0` in old
 * examples), so ids are read leniently and then held to a safe spelling.
 */

/** Ids we put in a path: the service's prefixed ids (`req_...`), or digits. */
const idText = /^[A-Za-z0-9_-]{1,100}$/;
const id = z.union([z.string(), z.number().int().nonnegative()]).transform(String).pipe(z.string().regex(idText));

const nested = z.looseObject({ id: id.optional() });

const deliverySchema = z.looseObject({
  event_name: z.string().min(1).max(100),
  id: id.optional(),
  page_id: id.optional(),
  request_id: id.optional(),
  field_id: id.optional(),
  request: nested.optional(),
  field: nested.optional(),
});

export interface SnareDelivery {
  event: SnareTriggerName;
  subject: SnareSubject;
  /** The id of the record the event is about (the comment's, for comment_created, when it has one). */
  id?: string;
  requestId?: string;
  pageId?: string;
  fieldId?: string;
  /** comment_created only: what the body says of the comment, which the API cannot confirm. */
  claimed?: Record<string, unknown>;
}

export type SnareParse =
  | { kind: 'delivery'; delivery: SnareDelivery }
  /** An event no trigger is built on (e.g. `request_created`): nothing to do. */
  | { kind: 'other'; event: string }
  /** The body does not name what its event needs to be read back: which keys. */
  | { kind: 'misfit'; event: string; keys: string[] };

const claimedCommentKeys = ['id', 'text', 'comment', 'body', 'author_name', 'created_at', 'internal'] as const;
const maxClaimedChars = 4000;

export function parseSnareDelivery(payload: unknown): SnareParse {
  const parsed = deliverySchema.safeParse(payload);
  if (!parsed.success) {
    const event =
      typeof (payload as { event_name?: unknown })?.event_name === 'string' ? String((payload as { event_name: string }).event_name) : '';
    return { kind: 'misfit', event, keys: [...new Set(parsed.error.issues.map((i) => i.path.join('.') || '(body)'))] };
  }
  const body = parsed.data;
  if (!(snareTriggerNames as readonly string[]).includes(body.event_name)) return { kind: 'other', event: body.event_name };
  const event = body.event_name as SnareTriggerName;
  const subject = snareTriggerRows[event].subject;
  const requestId = body.request?.id ?? body.request_id;
  const need = (ok: boolean, key: string): string[] => (ok ? [] : [key]);
  switch (subject) {
    case 'request':
    case 'client': {
      const missing = need(body.id !== undefined, 'id');
      if (missing.length > 0) return { kind: 'misfit', event, keys: missing };
      return { kind: 'delivery', delivery: { event, subject, id: body.id } };
    }
    case 'field': {
      const missing = [
        ...need(body.id !== undefined, 'id'),
        ...need(body.page_id !== undefined, 'page_id'),
        ...need(requestId !== undefined, 'request.id'),
      ];
      if (missing.length > 0) return { kind: 'misfit', event, keys: missing };
      return { kind: 'delivery', delivery: { event, subject, id: body.id, fieldId: body.id, pageId: body.page_id, requestId } };
    }
    case 'comment': {
      if (requestId === undefined) return { kind: 'misfit', event, keys: ['request.id'] };
      const fieldId = body.field?.id ?? body.field_id;
      return {
        kind: 'delivery',
        delivery: {
          event,
          subject,
          ...(body.id !== undefined ? { id: body.id } : {}),
          requestId,
          ...(fieldId !== undefined ? { fieldId } : {}),
          ...(body.page_id !== undefined ? { pageId: body.page_id } : {}),
          claimed: claimedComment(body),
        },
      };
    }
  }
}

/** The comment as the body tells it: a few known keys, each bounded (it is passed on marked unconfirmed). */
function claimedComment(body: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const key of claimedCommentKeys) {
    const v = body[key];
    if (typeof v === 'string') out[key] = v.slice(0, maxClaimedChars);
    else if (typeof v === 'number' || typeof v === 'boolean') out[key] = v;
  }
  return out;
}
