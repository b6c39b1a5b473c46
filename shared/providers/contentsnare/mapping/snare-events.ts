import { createHash } from 'node:crypto';
import type { SnareTriggerName } from '../../../domain/triggers';
import { stableId } from '../../../domain/stable-id';
import type { EventFacts, MappedEvent } from '../../../domain/mapping/types';

/**
 * From a collection-service record as the API reports it (read back, never the delivery's
 * body) to what its triggers say about it. Pure.
 *
 * "Once" is decided on the record's state, not on deliveries (the service gives them no id):
 * each trigger has a LEVEL on a record, a string when its condition holds (`completed`) and
 * null when not. A level that rises (null, or another string, to a string) starts a new
 * EPISODE; an event is the (trigger, record, episode) it announces, so a redelivery or a
 * burst of copies finds the same episode and is announced once, while a real change later
 * (reopened, then completed again; details changed again) starts the next one.
 */

export type Json = Record<string, unknown>;

export type SnareReadBack =
  | { subject: 'request'; request: Json }
  | { subject: 'field'; field: Json; page: Json; section?: Json; request: Json }
  | { subject: 'comment'; request: Json; field?: Json }
  | { subject: 'client'; client: Json };

/** One trigger's memory on one record: its last level, how many episodes it has had, and the record's mark when the last one began. */
export interface TriggerMemory {
  state: string | null;
  n: number;
  at?: string;
}

export type SubjectMemory = Partial<Record<SnareTriggerName, TriggerMemory>>;

export type Levels = Partial<Record<SnareTriggerName, string | null>>;

const num = (v: unknown): number | undefined => {
  const n = typeof v === 'number' ? v : typeof v === 'string' && v.trim() !== '' ? Number(v) : Number.NaN;
  return Number.isFinite(n) ? n : undefined;
};
const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : typeof v === 'number' ? String(v) : undefined);

/** The record a read-back is about, as the key its memory is kept under. */
export function subjectKey(rb: SnareReadBack): string {
  switch (rb.subject) {
    case 'request':
    case 'comment':
      return `request:${str(rb.request.id)}`;
    case 'field':
      return `field:${str(rb.field.id)}`;
    case 'client':
      return `client:${str(rb.client.id)}`;
  }
}

const outOfDraft = new Set(['published', 'waiting', 'completed', 'archived']);
const open = new Set(['published', 'waiting']);

function allFieldsDone(request: Json): boolean {
  const fields = num(request.fields_count);
  const done = num(request.done_fields_count);
  if (fields !== undefined && done !== undefined && fields > 0) return done >= fields;
  return num(request.completion_percentage) === 100;
}

/**
 * The levels this read-back settles. `delivered` is the trigger a delivery claimed, if any:
 * a reopening is also recognised from the delivery itself (the recovery check only from
 * having seen the request completed), and a view leaves no trace but its delivery.
 */
export function levelsOf(rb: SnareReadBack, delivered: SnareTriggerName | undefined, prev: SubjectMemory): Levels {
  switch (rb.subject) {
    case 'request': {
      const r = rb.request;
      const status = str(r.status) ?? '';
      const wasCompleted = prev.request_completed?.state != null || prev.request_reopened?.state != null;
      const levels: Levels = {
        request_published: outOfDraft.has(status) ? 'published' : null,
        request_completed: status === 'completed' ? 'completed' : null,
        all_fields_completed: allFieldsDone(r) ? 'all_fields' : null,
        request_reopened: open.has(status) && (delivered === 'request_reopened' || wasCompleted) ? 'reopened' : null,
      };
      if (delivered === 'request_viewed') levels.request_viewed = `viewed@${str(r.updated_at) ?? ''}`;
      return levels;
    }
    case 'field': {
      const status = str(rb.field.status) ?? '';
      return {
        field_completed: status === 'done' || status === 'approved' ? 'done' : null,
        field_approved: status === 'approved' ? 'approved' : null,
        field_rejected: status === 'redo' ? 'redo' : null,
      };
    }
    case 'client':
      return { client_created: 'exists', client_updated: detailsSignature(rb.client) };
    case 'comment':
      // A comment cannot be read back: the request's memory is not touched by it.
      return {};
  }
}

/** The client's details as the API shows them, as one value: keys sorted, so the same details always give the same signature. */
function detailsSignature(record: Json): string {
  return createHash('sha256').update(canonical(record)).digest('hex').slice(0, 32);
}

function canonical(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(canonical).join(',')}]`;
  if (v && typeof v === 'object')
    return `{${Object.keys(v)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonical((v as Json)[k])}`)
      .join(',')}}`;
  return JSON.stringify(v) ?? 'null';
}

/**
 * What tells one version of a record from the next where the API shows it: a request's
 * `updated_at`, a field's status, values and rejection message. A delivery of a trigger whose
 * level already holds is a new episode when the record changed since the episode began
 * (completed, reopened unseen, completed again); the recovery check never uses it (a record
 * changed for another reason is not a new completion).
 */
export function markOf(rb: SnareReadBack): string | undefined {
  switch (rb.subject) {
    case 'request':
      return str(rb.request.updated_at);
    case 'field':
      return canonical([rb.field.status, rb.field.values_flat ?? rb.field.values ?? null, rb.field.rejection_message ?? null]);
    default:
      return undefined;
  }
}

/** The current episode of each trigger whose level holds, and the memory after this observation. */
export function observe(
  memory: SubjectMemory,
  levels: Levels,
  delivered?: { trigger: SnareTriggerName; mark: string | undefined },
): { next: SubjectMemory; episodes: Partial<Record<SnareTriggerName, { n: number; state: string; fresh: boolean }>> } {
  const next: SubjectMemory = { ...memory };
  const episodes: Partial<Record<SnareTriggerName, { n: number; state: string; fresh: boolean }>> = {};
  for (const [trigger, state] of Object.entries(levels) as Array<[SnareTriggerName, string | null]>) {
    const prev = memory[trigger] ?? { state: null, n: 0 };
    if (state === null) {
      next[trigger] = { state: null, n: prev.n };
      continue;
    }
    const redone = delivered?.trigger === trigger && delivered.mark !== undefined && prev.at !== undefined && delivered.mark !== prev.at;
    const fresh = state !== prev.state || redone;
    const n = fresh ? prev.n + 1 : prev.n;
    const mark = delivered?.trigger === trigger ? delivered.mark : undefined;
    const at = fresh ? (mark ?? prev.at) : (prev.at ?? mark);
    next[trigger] = { state, n, ...(at !== undefined ? { at } : {}) };
    episodes[trigger] = { n, state, fresh };
  }
  return { next, episodes };
}

/** The identity of one announced change: what the delivery claim and the event id are keyed on. */
export function changeIdentity(trigger: SnareTriggerName, rb: SnareReadBack, episode: { n: number; state: string }): string {
  return stableId('csd_', [trigger, subjectKey(rb), String(episode.n), episode.state]);
}

/** comment_created: each distinct comment the body claims, on the request read back (no memory: a comment has no state to read). */
export function commentIdentity(rb: SnareReadBack, claimed: Json): string {
  return stableId('csd_', ['comment_created', subjectKey(rb), canonical(claimed)]);
}

function requestFacts(request: Json | undefined): EventFacts {
  if (!request) return {};
  const clients = Array.isArray(request.clients) ? (request.clients as Json[]) : [];
  const ids = [...clients.flatMap((c) => [str(c?.id), str(c?.email)]), str(request.primary_client_id)].filter(
    (x): x is string => x !== undefined && x !== '',
  );
  const template = str(request.request_template_name);
  const folder = str(request.folder_name);
  return {
    request: {
      ...(template ? { template } : {}),
      ...(folder ? { folder } : {}),
      clients: [...new Set(ids)],
    },
  };
}

/** The trigger event, carrying the records as read back (and, for a comment, what the delivery claims, marked so). */
export function snareMappedEvent(trigger: SnareTriggerName, rb: SnareReadBack, claimed?: Json): MappedEvent {
  const base = { event_name: trigger };
  switch (rb.subject) {
    case 'request':
      return {
        trigger: `contentsnare.${trigger}`,
        dedupeKey: 'delivery',
        event: { ...base, request: rb.request },
        facts: requestFacts(rb.request),
      };
    case 'field': {
      const page = { id: rb.page.id, name: rb.page.name ?? null };
      const section = rb.section ? { id: rb.section.id, name: rb.section.name ?? null } : null;
      return {
        trigger: `contentsnare.${trigger}`,
        dedupeKey: 'delivery',
        event: { ...base, field: rb.field, page, section, request: rb.request },
        facts: requestFacts(rb.request),
      };
    }
    case 'comment':
      return {
        trigger: `contentsnare.${trigger}`,
        dedupeKey: 'delivery',
        event: {
          ...base,
          request: rb.request,
          ...(rb.field ? { field: rb.field } : {}),
          claimed: {
            comment: claimed ?? {},
            confirmed: false,
            note: 'The API has no endpoint to read comments: this is what the delivery said.',
          },
        },
        facts: requestFacts(rb.request),
      };
    case 'client':
      return { trigger: `contentsnare.${trigger}`, dedupeKey: 'delivery', event: { ...base, client: rb.client }, facts: {} };
  }
}
