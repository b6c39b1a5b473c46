import { randomBytes } from 'node:crypto';
import * as z from 'zod';
import { assertCallerActsFor, assertCallerMayUse, callerMaySee, type Caller } from '../domain/caller';
import { didYouMean } from '../domain/did-you-mean';
import { AppError, InvalidInputError } from '../domain/errors';
import type { TriggerEvent } from '../domain/model';
import { fieldProblems } from '../domain/validation';
import { deliveryGate, gateReason } from '../dispatch/delivery-gate';
import { enqueueEvents } from '../dispatch/fan-out';
import { fromQueueMessage, PoisonMessageError } from '../dispatch/event-message';
import type { AppContext } from '../ports/app-context';
import {
  listEvents,
  readBody,
  readSummary,
  sharedSummaryFields,
  summaryRow,
  withReplay,
  type Attempt,
  type EventSummary,
} from '../store/event-history';
import { ConnectionRepo } from '../store/connection-repo';
import { keys } from '../store/table-design';
import { admitReplay } from './replay-bounds';
import {
  type attemptViewSchema,
  defaultEventsPerPage,
  eventDetailAnswerSchema,
  eventsReadBudget,
  listEventsAnswerSchema,
  listEventsQueryNames,
  listEventsQuerySchema,
  replayEventAnswerSchema,
  type EventDetailAnswer,
  type EventSummaryView,
  type ListEventsAnswer,
  type ReplayEventAnswer,
} from './event-routes-schemas';

/**
 * The event history as the platform API serves it (docs/api.md, "Event history"): events
 * newest first with filters and paging, one event with its attempts, and replay. A scoped key
 * sees only the events of its connections that still exist (and, bound to agents, of those
 * agents), as with subscriptions; an event it may not see is answered as one that does not exist.
 */

const iso = (ms: number) => new Date(ms).toISOString();

function attemptView(a: Attempt): z.infer<typeof attemptViewSchema> {
  const { at, nextTryAt, ...rest } = a;
  return { ...rest, at: iso(at), ...(nextTryAt !== undefined ? { nextTryAt: iso(nextTryAt) } : {}) };
}

export function summaryView(s: EventSummary): EventSummaryView {
  const last = s.attempts.at(-1);
  return {
    id: s.eventId,
    ...sharedSummaryFields(s),
    queuedAt: iso(s.queuedAt),
    updatedAt: iso(s.updatedAt),
    ...(last ? { lastAttempt: attemptView(last) } : {}),
    ...(s.nextTryAt !== undefined ? { nextTryAt: iso(s.nextTryAt) } : {}),
  };
}

const cursorSchema = z.object({ v: z.literal(1), before: z.string().min(1).max(400) }).strict();

function encodeCursor(before: string): string {
  return Buffer.from(JSON.stringify({ v: 1, before }), 'utf8').toString('base64url');
}

function decodeCursor(cursor: string): string {
  try {
    return cursorSchema.parse(JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'))).before;
  } catch {
    throw new InvalidInputError([{ field: 'cursor', message: 'not a cursor from a previous page' }]);
  }
}

/** The query of `GET /events`, every bad or unknown parameter named. */
export function parseListQuery(query: URLSearchParams) {
  const given: Record<string, string> = {};
  const problems: { field: string; message: string }[] = [];
  for (const [name, value] of query) {
    if (!listEventsQueryNames.includes(name)) {
      problems.push({ field: name, message: `not a filter of GET /events.${didYouMean(name, listEventsQueryNames)}`.trim() });
      continue;
    }
    if (name in given) problems.push({ field: name, message: 'given twice' });
    // An empty parameter (a form's blank filter) means no filter.
    if (value !== '') given[name] = value;
  }
  const parsed = listEventsQuerySchema.safeParse(given);
  if (!parsed.success) problems.push(...fieldProblems(parsed.error));
  if (problems.length > 0 || !parsed.success) throw new InvalidInputError(problems, 'Invalid query');
  return parsed.data;
}

/**
 * The key's connections that still exist. A disconnect takes its connection off every key;
 * this holds even for a key made while that disconnect ran.
 */
async function liveConnections(ctx: Pick<AppContext, 'store'>, ids: readonly string[]): Promise<string[]> {
  const repo = new ConnectionRepo(ctx.store);
  const found = await Promise.all(ids.map((id) => repo.get(id)));
  return ids.filter((_, i) => found[i] !== undefined);
}

/** `GET /events`. */
export async function listEventsFor(ctx: Pick<AppContext, 'store'>, caller: Caller, query: URLSearchParams): Promise<ListEventsAnswer> {
  const q = parseListQuery(query);
  if (q.connectionId !== undefined) assertCallerMayUse(caller, q.connectionId);
  if (q.agentId !== undefined) assertCallerActsFor(caller, q.agentId);
  const asked = q.connectionId !== undefined ? [q.connectionId] : caller.kind === 'scoped' ? caller.connections : undefined;
  const connections = asked !== undefined && caller.kind === 'scoped' ? await liveConnections(ctx, asked) : asked;
  if (connections !== undefined && connections.length === 0) return { events: [] };
  const agents = caller.kind === 'scoped' ? caller.agents : undefined;
  const page = await listEvents(ctx.store, {
    filter: {
      ...(q.trigger !== undefined ? { trigger: q.trigger } : {}),
      ...(q.status !== undefined ? { status: q.status } : {}),
      ...(q.repository !== undefined ? { repository: q.repository } : {}),
      ...(q.agentId !== undefined ? { agentId: q.agentId } : {}),
      ...(connections !== undefined ? { connections } : {}),
      ...(agents !== undefined ? { agents } : {}),
    },
    limit: q.limit ?? defaultEventsPerPage,
    budget: eventsReadBudget,
    ...(q.cursor !== undefined ? { before: decodeCursor(q.cursor) } : {}),
  });
  return listEventsAnswerSchema.parse({
    events: page.events.map(summaryView),
    ...(page.before !== undefined ? { nextCursor: encodeCursor(page.before) } : {}),
  });
}

const unknownEvent = (eventId: string) => new AppError('not_found', `No event ${eventId} in the history (events are kept 30 days)`);

/**
 * The event's summary, when the caller may see it. An event outside a scoped key's reach (another
 * connection, a disconnected one, another agent) is answered exactly as an unknown id, so that a
 * key learns nothing of events it may not see, not even which connection they belong to.
 */
async function summaryInScope(ctx: Pick<AppContext, 'store'>, caller: Caller, eventId: string): Promise<EventSummary> {
  const summary = await readSummary(ctx.store, eventId);
  if (!summary || !callerMaySee(caller, summary)) throw unknownEvent(eventId);
  if (caller.kind === 'scoped' && !(await new ConnectionRepo(ctx.store).get(summary.connectionId))) throw unknownEvent(eventId);
  return summary;
}

/** The event as queued, from its body row (inline, or the claim-check blob while it is kept). */
async function storedEvent(ctx: Pick<AppContext, 'store' | 'blobs'>, eventId: string): Promise<TriggerEvent | undefined> {
  const body = await readBody(ctx.store, eventId);
  if (!body) return undefined;
  try {
    const read = await fromQueueMessage(ctx, 'json' in body ? body.json : JSON.stringify({ blobKey: body.blobKey }));
    return read.event;
  } catch (e) {
    if (e instanceof PoisonMessageError) return undefined;
    throw e;
  }
}

/**
 * The status as it is now: the summary's, unless the dispatch claim says an attempt is running
 * (`delivering`) or the event was delivered before its queued summary was written.
 */
async function liveStatus(ctx: Pick<AppContext, 'store'>, summary: EventSummary): Promise<EventSummary> {
  if (summary.status !== 'queued' && summary.status !== 'retrying') return summary;
  const claim = await ctx.store.get(keys.dispatchClaim(summary.eventId));
  if (claim?.state === 'in_progress') return { ...summary, status: 'delivering' };
  if (claim !== undefined) return { ...summary, status: 'delivered' };
  return summary;
}

/** `GET /events/{id}`. */
export async function getEventFor(ctx: Pick<AppContext, 'store' | 'blobs'>, caller: Caller, eventId: string): Promise<EventDetailAnswer> {
  const summary = await liveStatus(ctx, await summaryInScope(ctx, caller, eventId));
  const event = await storedEvent(ctx, eventId);
  return eventDetailAnswerSchema.parse({
    ...summaryView(summary),
    attempts: summary.attempts.map(attemptView),
    event: event ? { ...event } : null,
  });
}

/** How many replays a chain of replays is followed back to its original (older rows may chain). */
const maxReplayChain = 5;

/**
 * The original an event replays (itself when it is one): a replay of a replay replays the
 * original. When the original's history has expired, the oldest replay still kept stands in.
 */
async function originalOf(ctx: Pick<AppContext, 'store'>, summary: EventSummary): Promise<{ summary: EventSummary; rootId: string }> {
  let current = summary;
  let rootId = summary.replayOf ?? summary.eventId;
  for (let hops = 0; current.replayOf !== undefined && hops < maxReplayChain; hops++) {
    rootId = current.replayOf;
    const earlier = await readSummary(ctx.store, current.replayOf);
    if (!earlier) break;
    current = earlier;
  }
  return { summary: current, rootId: current.replayOf ?? rootId };
}

/**
 * `POST /events/{id}/replay`: the original's body queued again as a new event (a fresh id, so
 * an agent runtime that drops repeated ids takes it) that says what it replays (`replayOf`,
 * always the original); the original's history says it was replayed and by which event.
 * Refused when a gate its first delivery passed is closed now (409 `conflict`: the subscription
 * deleted, the connection disconnected or inactive, the repository out of the allow-list; the
 * dispatch checks them again before it posts), and past the bounds of replay-bounds.ts (429
 * `replay_limited`, saying when the next is allowed).
 */
export async function replayEventFor(ctx: AppContext, caller: Caller, eventId: string): Promise<ReplayEventAnswer> {
  const asked = await summaryInScope(ctx, caller, eventId);
  const { summary, rootId } = await originalOf(ctx, asked);
  const stored = await storedEvent(ctx, summary.eventId);
  if (!stored) {
    throw new AppError(
      'not_found',
      `Event ${eventId}'s body is no longer kept (a body over 200 KB is kept only until delivered), so it cannot be replayed`,
    );
  }
  const refusal = await deliveryGate(ctx, stored);
  if (refusal !== undefined) {
    throw new AppError('conflict', `Event ${eventId} cannot be replayed: ${gateReason(refusal)}`, { reason: refusal });
  }
  await admitReplay(ctx, caller, rootId);
  const { replayOf: _earlier, ...original } = stored;
  const replay: TriggerEvent = { ...original, id: `evt_replay_${randomBytes(12).toString('hex')}`, replayOf: rootId };
  await enqueueEvents(ctx, [replay]);
  const now = ctx.clock.now();
  await ctx.store.put(summaryRow(withReplay(summary, replay.id, now), now)).catch((e: unknown) => {
    ctx.logger.warn('could not mark the replayed event in its history', { eventId: summary.eventId, replayId: replay.id, error: e });
  });
  ctx.metrics.count('events_replayed');
  ctx.logger.info('trigger event replayed', { eventId, replayOf: rootId, replayId: replay.id, trigger: original.trigger });
  return replayEventAnswerSchema.parse({ id: replay.id, replayOf: rootId, status: 'queued' });
}
