import * as z from 'zod';
import type { TriggerEvent } from '../domain/model';
import type { Item, Store } from '../ports';
import { keys, ttlIn } from './table-design';

/**
 * What happened to each trigger event, kept after the queue forgets it: one small summary row
 * (`EVH#<id>`/`EVH`: trigger, subscription, connection, agent, subject, status, the latest
 * attempts) rewritten as the event moves, and its body (`EVH#<id>`/`BODY`) written once when it
 * is queued, for replay. Both expire `eventHistoryRetentionSeconds` after their last write.
 *
 * Cost: the producers write both rows in the batch of marks they already make (the intake's
 * done marks), and the dispatch rewrites the summary in the batch of its done mark; a failed
 * try costs one read and one write more (docs/architecture.md, "Event history").
 */

/** How long an event's history is kept after its last change: 30 days, as long as a delivered event's dispatch claim. */
export const eventHistoryRetentionSeconds = 30 * 24 * 3600;
/** The newest attempts kept per event (the count of all of them is kept beside). */
export const maxKeptAttempts = 20;
/** A reason is cut to this (an agent runtime's error text does not grow a row). */
export const maxReasonChars = 300;

/** `dropped`: not sent, because a gate closed after it was queued (shared/dispatch/delivery-gate.ts). */
export const eventStatuses = [
  'queued',
  'delivering',
  'retrying',
  'delivered',
  'logged',
  'settled',
  'dropped',
  'dead_lettered',
  'replayed',
] as const;
export type EventStatus = (typeof eventStatuses)[number];

export const attemptSchema = z
  .object({
    /** When the POST was made, epoch ms. */
    at: z.number().int(),
    lane: z.enum(['main', 'slow']).optional(),
    outcome: z.enum(['delivered', 'failed', 'throttled', 'timed_out']),
    /** The agent runtime's HTTP status, when it answered. */
    status: z.number().int().optional(),
    /** Why it failed: `HTTP 503`, `connection refused (ECONNREFUSED 127.0.0.1:4000)`, `no answer within 10000 ms`. */
    reason: z.string().max(maxReasonChars).optional(),
    /** When the next try is due (epoch ms), for an attempt that failed. */
    nextTryAt: z.number().int().optional(),
  })
  .strict();
export type Attempt = z.infer<typeof attemptSchema>;

/**
 * The summary's fields that read the same in the table and in the API's answers (`GET /events`
 * and `GET /events/{id}`): the one list of them, which the stored schema below and the answers'
 * schema and mapper (shared/events/event-routes-schemas.ts, event-history-api.ts) are built on.
 * The others differ by form only: the id (`eventId` stored, `id` answered), times (epoch ms
 * stored, ISO answered) and the attempts (all kept stored, the latest answered in a listing).
 */
export const summaryFields = {
  trigger: z.string(),
  status: z.enum(eventStatuses),
  subscriptionId: z.string(),
  connectionId: z.string(),
  agentId: z.string(),
  repository: z.string().optional(),
  organization: z.string().optional(),
  deliveryId: z.string(),
  occurredAt: z.string(),
  /** Every POST made so far (the stored `attempts` hold the newest `maxKeptAttempts`). */
  attemptCount: z.number().int().nonnegative(),
  /** The status it had when it was replayed (status `replayed`). */
  previousStatus: z.enum(eventStatuses).optional(),
  /** The event this one replays. */
  replayOf: z.string().optional(),
  /** The events that replay this one, newest last (at most 10). */
  replayedBy: z.array(z.string()).max(10).optional(),
};
export type SummaryFields = z.infer<z.ZodObject<typeof summaryFields>>;

/** The shared fields of a summary (see `summaryFields`), those it has, for an answer built on them. */
export function sharedSummaryFields(s: SummaryFields): SummaryFields {
  const out: Record<string, unknown> = {};
  for (const name of Object.keys(summaryFields)) {
    const value = (s as Record<string, unknown>)[name];
    if (value !== undefined) out[name] = value;
  }
  return out as SummaryFields;
}

/** One event's summary as stored (without keys). */
export const eventSummarySchema = z.object({
  eventId: z.string(),
  ...summaryFields,
  /** When it was put on the dispatch queue, epoch ms. */
  queuedAt: z.number().int(),
  updatedAt: z.number().int(),
  attempts: z.array(attemptSchema).max(maxKeptAttempts),
  nextTryAt: z.number().int().optional(),
});
export type EventSummary = z.infer<typeof eventSummarySchema>;

const maxReplayIds = 10;

/** `owner/name` and the organization an event is about, read from its `event` as the mappers build it. */
export function subjectOf(event: TriggerEvent['event']): { repository?: string; organization?: string } {
  const repo = event.repository as { full_name?: unknown; owner?: { login?: unknown } } | string | undefined;
  const org = event.organization as { login?: unknown } | string | undefined;
  const repository = typeof repo === 'string' ? repo : typeof repo?.full_name === 'string' ? repo.full_name : undefined;
  const organization =
    typeof org === 'string'
      ? org
      : typeof org?.login === 'string'
        ? org.login
        : typeof repo === 'object' && typeof repo?.owner?.login === 'string'
          ? repo.owner.login
          : undefined;
  return {
    ...(repository ? { repository: repository.slice(0, 200) } : {}),
    ...(organization ? { organization: organization.slice(0, 100) } : {}),
  };
}

/** The sort key of both listings: queue time (fixed width, so it sorts as a string) then id. */
export function listingSortKey(queuedAt: number, eventId: string): string {
  return `${String(Math.max(0, Math.floor(queuedAt))).padStart(15, '0')}#${eventId}`;
}

/** A new event's summary, status `queued`. */
export function queuedSummary(event: TriggerEvent, queuedAt: number, replayOf?: string): EventSummary {
  return {
    eventId: event.id,
    trigger: event.trigger,
    subscriptionId: event.subscriptionId,
    connectionId: event.connectionId,
    agentId: event.agentId,
    ...subjectOf(event.event),
    deliveryId: event.deliveryId,
    occurredAt: event.occurredAt,
    queuedAt,
    updatedAt: queuedAt,
    status: 'queued',
    attemptCount: 0,
    attempts: [],
    ...(replayOf ? { replayOf } : {}),
  };
}

/** The summary as a row: both listings' keys and the retention. */
export function summaryRow(summary: EventSummary, nowMs: number): Item {
  const sortKey = listingSortKey(summary.queuedAt, summary.eventId);
  return {
    ...summary,
    ...keys.eventHistory(summary.eventId),
    gsi1pk: keys.eventsOfConnection(summary.connectionId),
    gsi1sk: sortKey,
    gsi2pk: keys.eventsList,
    gsi2sk: sortKey,
    ttl: ttlIn(nowMs, eventHistoryRetentionSeconds),
  };
}

/**
 * The body row: the event's JSON as queued, or, for an event too big for a message (claim
 * check), the blob that holds it until the event is delivered.
 */
export function bodyRow(eventId: string, nowMs: number, body: { json: string } | { blobKey: string }): Item {
  return {
    ...keys.eventBody(eventId),
    ...('json' in body ? { body: body.json } : { blobKey: body.blobKey }),
    ttl: ttlIn(nowMs, eventHistoryRetentionSeconds),
  };
}

/** A stored row back to its summary; undefined for a row that does not read as one (never taken on faith). */
export function summaryOf(row: Item | undefined): EventSummary | undefined {
  if (!row) return undefined;
  const parsed = eventSummarySchema.safeParse(row);
  return parsed.success ? parsed.data : undefined;
}

export function readSummary(store: Store, eventId: string): Promise<EventSummary | undefined> {
  return store.get(keys.eventHistory(eventId)).then(summaryOf);
}

/** The summary after one more attempt: the attempt appended (the oldest dropped past the bound), the status and next try set. */
export function withAttempt(summary: EventSummary, attempt: Attempt, status: EventStatus, nowMs: number): EventSummary {
  const bounded: Attempt = attempt.reason !== undefined ? { ...attempt, reason: attempt.reason.slice(0, maxReasonChars) } : attempt;
  const { nextTryAt: _previous, ...rest } = summary;
  return {
    ...rest,
    status,
    updatedAt: nowMs,
    attemptCount: summary.attemptCount + 1,
    attempts: [...summary.attempts, bounded].slice(-maxKeptAttempts),
    ...(status === 'retrying' && attempt.nextTryAt !== undefined ? { nextTryAt: attempt.nextTryAt } : {}),
  };
}

/** The summary with a new status and no attempt (logged, settled by a follow-up). */
export function withStatus(summary: EventSummary, status: EventStatus, nowMs: number): EventSummary {
  const { nextTryAt: _n, ...rest } = summary;
  return { ...rest, status, updatedAt: nowMs };
}

/** The original's summary once `replayId` replays it. */
export function withReplay(summary: EventSummary, replayId: string, nowMs: number): EventSummary {
  return {
    ...summary,
    status: 'replayed',
    previousStatus: summary.status === 'replayed' ? summary.previousStatus : summary.status,
    updatedAt: nowMs,
    replayedBy: [...(summary.replayedBy ?? []), replayId].slice(-maxReplayIds),
  };
}

/** What an event's body row holds. */
export type StoredBody = { json: string } | { blobKey: string };

export async function readBody(store: Store, eventId: string): Promise<StoredBody | undefined> {
  const row = await store.get(keys.eventBody(eventId));
  if (typeof row?.body === 'string') return { json: row.body };
  if (typeof row?.blobKey === 'string') return { blobKey: row.blobKey };
  return undefined;
}

export interface ListFilter {
  trigger?: string;
  status?: EventStatus;
  repository?: string;
  agentId?: string;
  /** The connections the caller may see (a scoped key), or one asked for: the others are skipped. */
  connections?: readonly string[];
  /** The agents a scoped key acts for: the others' events are skipped. */
  agents?: readonly string[];
}

export interface ListInput {
  filter: ListFilter;
  limit: number;
  /** The sort key of the last row the previous page examined: this page starts after it. */
  before?: string;
  /** Rows read at most for one page: with a narrow filter the page may come back short, with a cursor to go on. */
  budget: number;
}

export interface ListPage {
  events: EventSummary[];
  /** Sort key of the last row examined, when more may follow. */
  before?: string;
}

function matches(s: EventSummary, f: ListFilter): boolean {
  if (f.trigger !== undefined && s.trigger !== f.trigger) return false;
  if (f.status !== undefined && s.status !== f.status) return false;
  if (f.repository !== undefined && s.repository?.toLowerCase() !== f.repository.toLowerCase()) return false;
  if (f.agentId !== undefined && s.agentId !== f.agentId) return false;
  if (f.connections !== undefined && !f.connections.includes(s.connectionId)) return false;
  if (f.agents !== undefined && !f.agents.includes(s.agentId)) return false;
  return true;
}

/**
 * Events newest first, filtered. One connection reads its own index partition (gsi1 `EVTC#`);
 * otherwise the listing of all events (gsi2 `EVTS`), filtered here. Paged by the sort key of
 * the last row examined, not by the index's own cursor, so that a page stops exactly where the
 * limit or the read budget is reached and a cursor stays valid while new events arrive.
 */
export async function listEvents(store: Store, input: ListInput): Promise<ListPage> {
  const only = input.filter.connections?.length === 1 ? input.filter.connections[0] : undefined;
  const source =
    only !== undefined ? { index: 'gsi1' as const, pk: keys.eventsOfConnection(only) } : { index: 'gsi2' as const, pk: keys.eventsList };
  const out: EventSummary[] = [];
  let before = input.before;
  let cursor: string | undefined;
  let read = 0;
  // Pages of rows the store reads as expired hold nothing live: bounded all the same.
  for (let pages = 0; pages < 50; pages++) {
    const pageSize = Math.max(1, Math.min(100, Math.max(input.limit - out.length, 10), input.budget - read));
    const page = await store.query({
      ...source,
      ascending: false,
      limit: pageSize,
      ...(input.before !== undefined ? { skBefore: input.before } : {}),
      ...(cursor !== undefined ? { cursor } : {}),
    });
    for (const row of page.items) {
      read++;
      const sortKey = source.index === 'gsi1' ? row.gsi1sk : row.gsi2sk;
      if (typeof sortKey === 'string') before = sortKey;
      const summary = summaryOf(row);
      if (summary && matches(summary, input.filter)) out.push(summary);
      if (out.length >= input.limit) return { events: out, ...(before !== undefined ? { before } : {}) };
    }
    if (page.cursor === undefined) return { events: out };
    cursor = page.cursor;
    if (read >= input.budget) break;
  }
  return { events: out, ...(before !== undefined ? { before } : {}) };
}
