import { gunzipSync, gzipSync } from 'node:zlib';
import * as z from 'zod';
import type { TriggerEvent } from '../domain/model';
import type { Item, Store } from '../ports';
import { getCoalesced } from './coalesced-gets';
import { eventListingFields } from './event-listing-fields';
import { type ListingSource, MergedListing } from './merged-listing';
import { eventShardCount, keys, ttlIn } from './table-design';

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

/** The fields the all-events index projects besides its keys: each one of the summary's (a misspelt one would not compile). */
export const listedFields: readonly (keyof EventSummary)[] = eventListingFields;

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

/**
 * The shard of the all-events listing an event is listed in: FNV-1a of its id, so that events
 * spread evenly over the shards whatever connection or rate they come from.
 */
export function eventShard(eventId: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < eventId.length; i++) h = Math.imul(h ^ eventId.charCodeAt(i), 0x01000193);
  return (h >>> 0) % eventShardCount;
}

/**
 * The summary as a row: the retention and both listings' keys, its connection's partition (gsi1
 * `EVTC#<connectionId>`) and its shard of all events (gsi3 `EVTS#<n>`). Neither is a partition
 * every event writes, and neither key changes when the summary is rewritten.
 */
export function summaryRow(summary: EventSummary, nowMs: number): Item {
  const sortKey = listingSortKey(summary.queuedAt, summary.eventId);
  return {
    ...summary,
    ...keys.eventHistory(summary.eventId),
    gsi1pk: keys.eventsOfConnection(summary.connectionId),
    gsi1sk: sortKey,
    gsi3pk: keys.eventsShard(eventShard(summary.eventId)),
    gsi3sk: sortKey,
    ttl: ttlIn(nowMs, eventHistoryRetentionSeconds),
  };
}

/**
 * The body row: the event's JSON as queued (gzipped past `gzipBodiesOver`), or, for an event too
 * big for a message (claim check), the blob that holds it until the event is delivered.
 */
export function bodyRow(eventId: string, nowMs: number, body: { json: string } | { blobKey: string }): Item {
  return {
    ...keys.eventBody(eventId),
    ...('json' in body ? storedJson(body.json) : { blobKey: body.blobKey }),
    ttl: ttlIn(nowMs, eventHistoryRetentionSeconds),
  };
}

/**
 * JSON longer than this is kept gzipped (`bodyGzip`): a row is billed a write unit per KB, and an
 * issue's event (about 1.1 KB) gzips to about half a KB, one unit instead of two. Shorter JSON
 * fits one unit as it is.
 */
export const gzipBodiesOver = 900;

function storedJson(json: string): { body: string } | { bodyGzip: Uint8Array } {
  return Buffer.byteLength(json) > gzipBodiesOver ? { bodyGzip: gzipSync(json) } : { body: json };
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

/** `readSummary`, read in one call with the other summaries asked for in the same turn (a batch's events before their POSTs). */
export function readSummaryBatched(store: Store, eventId: string): Promise<EventSummary | undefined> {
  return getCoalesced(store, keys.eventHistory(eventId)).then(summaryOf);
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
  if (row?.bodyGzip instanceof Uint8Array) return { json: gunzipSync(row.bodyGzip).toString('utf8') };
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

/** The filters a listed row answers from the fields it was queued with (all but the status). */
function matchesListed(s: Readonly<Record<string, unknown>>, f: ListFilter): boolean {
  if (f.trigger !== undefined && s.trigger !== f.trigger) return false;
  const repository = typeof s.repository === 'string' ? s.repository.toLowerCase() : undefined;
  if (f.repository !== undefined && repository !== f.repository.toLowerCase()) return false;
  if (f.agentId !== undefined && s.agentId !== f.agentId) return false;
  if (f.connections !== undefined && !f.connections.includes(String(s.connectionId))) return false;
  if (f.agents !== undefined && !f.agents.includes(String(s.agentId))) return false;
  return true;
}

function matches(s: EventSummary, f: ListFilter): boolean {
  return (f.status === undefined || s.status === f.status) && matchesListed(s, f);
}

/** Connections whose own partitions are merged for a listing; a key that opens more reads the shards of all events. */
export const maxMergedConnections = 16;

/**
 * Where a listing reads: the partitions of the connections asked for, when there are few; the
 * shards of all events otherwise, and the one partition that listed every event before the
 * listing was sharded (its rows are read until they expire; a rewrite moves a row to its shard).
 */
function sourcesOf(filter: ListFilter): ListingSource[] {
  const only = filter.connections;
  if (only !== undefined && only.length <= maxMergedConnections)
    return [...new Set(only)].map((c) => ({ index: 'gsi1', pk: keys.eventsOfConnection(c), full: true }));
  return [
    ...Array.from({ length: eventShardCount }, (_, n): ListingSource => ({ index: 'gsi3', pk: keys.eventsShard(n), full: false })),
    { index: 'gsi2', pk: keys.legacyEventsList, full: true },
  ];
}

/** A listed row's summary, when the filters may take it: a shard's row holds only the queued fields, so the summary is read. */
function listedSummary(store: Store, row: Item, full: boolean, filter: ListFilter): Promise<EventSummary | undefined> {
  if (full) return Promise.resolve(summaryOf(row));
  if (!matchesListed(row, filter) || typeof row.eventId !== 'string') return Promise.resolve(undefined);
  return readSummary(store, row.eventId);
}

/**
 * Events newest first, filtered, merged from the partitions `sourcesOf` names. Paged by the sort
 * key of the last row examined, not by an index's own cursor, so that a page stops exactly where
 * the limit or the read budget is reached and a cursor stays valid while new events arrive; the
 * summaries of a shard's rows are read a page's worth at a time, in parallel.
 */
export async function listEvents(store: Store, input: ListInput): Promise<ListPage> {
  const listing = new MergedListing(store, sourcesOf(input.filter), input.before, input.limit);
  const out: EventSummary[] = [];
  const seen = new Set<string>();
  let before = input.before;
  let read = 0;
  for (;;) {
    const chunk: { sortKey: string; summary: Promise<EventSummary | undefined> }[] = [];
    let ended = false;
    while (chunk.length < input.limit - out.length && read < input.budget) {
      const next = await listing.next();
      if (!next) {
        ended = listing.complete;
        break;
      }
      read++;
      chunk.push({ sortKey: next.sortKey, summary: listedSummary(store, next.row, next.source.full, input.filter) });
    }
    for (const c of chunk) {
      before = c.sortKey;
      const summary = await c.summary;
      // A row rewritten while the page was read may show in its old partition and its new one.
      if (summary && matches(summary, input.filter) && !seen.has(summary.eventId)) {
        seen.add(summary.eventId);
        out.push(summary);
      }
      if (out.length >= input.limit) return { events: out, ...(before !== undefined ? { before } : {}) };
    }
    if (ended) return { events: out };
    if (chunk.length === 0 || read >= input.budget) return { events: out, ...(before !== undefined ? { before } : {}) };
  }
}
