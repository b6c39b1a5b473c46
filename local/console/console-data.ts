import type { LocalQueues } from '../../shared/adapters/local/local-queues';
import { summarizeDeadLetters, type DeadLetterSummary } from '../admin/dead-letters';
import type { AppContext } from '../../shared/ports/app-context';
import { ApiKeyRepo, type ApiKeyRecord } from '../../shared/store/api-key-repo';
import { ConnectionRepo } from '../../shared/store/connection-repo';
import { platformCaller } from '../../shared/domain/caller';
import { AppError } from '../../shared/domain/errors';
import { triggerCatalogOf } from '../../shared/ports/provider-contract';
import type { Connection, Subscription } from '../../shared/domain/model';
import { getEventFor, listEventsFor } from '../../shared/events/event-history-api';
import type { EventDetailAnswer } from '../../shared/events/event-routes-schemas';
import { SubscriptionRepo } from '../../shared/store/subscription-repo';
import type { RecentEvents } from './recent-events';
import type { CircuitSnapshot } from '../../shared/dispatch/circuit';
import type { CircuitBoard } from '../../shared/dispatch/circuit-board';

/** How many events a page shows (unless the filters ask for fewer), and dead letters. */
export const shownEvents = 25;
export const shownDeadLetters = 100;
/** Deliveries the intake refused that are shown (this process's, in memory). */
export const shownRefused = 20;

/** One event as the console shows it: what `GET /events/{id}` answers, and whether it sits in the dead-letter queue. */
export type EventView = EventDetailAnswer & { deadLetterId?: string };

/** A delivery the intake refused for its shape: nothing was queued for it. */
export interface RefusedView {
  deliveryId: string;
  event: string;
  reason: string;
  at: number;
}

export interface SubscriptionView extends Subscription {
  webhookUrl?: string;
  lastEvent?: EventView;
}

/** The events part of the page: a page of `GET /events` with the filters it was asked with. */
export interface EventsPage {
  events: EventView[];
  /** The filters and paging as given (to fill the form and build the links). */
  query: URLSearchParams;
  nextCursor?: string;
  /** Why the filters were refused (the field named), when they were. */
  error?: string;
}

export interface ConsoleData {
  connections: Connection[];
  /** Scoped keys (never the keys themselves). */
  keys: ApiKeyRecord[];
  subscriptions: SubscriptionView[];
  events: EventsPage;
  refused: RefusedView[];
  deadLetters: DeadLetterSummary[];
  deadLetterDepth: number;
  agentRuntimeUrl?: string;
  /** The consumer's circuit over the agent runtime, when the runtime runs one. */
  circuit?: CircuitSnapshot;
}

/** The query parameters of the page that are the event filters and paging (the others, like `done` or `tool`, are not). */
const eventParams = ['trigger', 'status', 'repository', 'connectionId', 'agentId', 'limit', 'cursor'];

export function eventQueryOf(query: URLSearchParams): URLSearchParams {
  const out = new URLSearchParams();
  for (const name of eventParams) {
    const value = query.get(name);
    if (value !== null && value !== '') out.set(name, value);
  }
  return out;
}

/**
 * A page of the event history through the platform API's own use cases (`GET /events`, then
 * `GET /events/{id}` for each event's attempts and body), with the event filters of the page's
 * query. The dead-letter queue is read too: an event in it shows as dead-lettered with its
 * message id, even when the queue moved it there without a try (a stale receive).
 */
export async function eventsPage(ctx: AppContext, queues: LocalQueues, pageQuery: URLSearchParams): Promise<EventsPage> {
  const query = eventQueryOf(pageQuery);
  if (!query.has('limit')) query.set('limit', String(shownEvents));
  let listed: Awaited<ReturnType<typeof listEventsFor>>;
  try {
    listed = await listEventsFor(ctx, platformCaller, query);
  } catch (e) {
    if (!(e instanceof AppError)) throw e;
    return { events: [], query, error: e.message };
  }
  const dead = new Map<string, string>();
  for (const m of queues.dlq.peek(shownDeadLetters)) {
    const id = eventIdOfMessage(m.body);
    if (id) dead.set(id, m.id);
  }
  const events = await Promise.all(
    listed.events.map(async (summary): Promise<EventView> => {
      const detail = await getEventFor(ctx, platformCaller, summary.id);
      const deadLetterId = dead.get(summary.id);
      if (deadLetterId === undefined) return detail;
      return { ...detail, status: detail.status === 'delivered' ? detail.status : 'dead_lettered', deadLetterId };
    }),
  );
  return { events, query, ...(listed.nextCursor ? { nextCursor: listed.nextCursor } : {}) };
}

/** The event id of a queue message: the event's own, or the one its claim-check pointer names. */
function eventIdOfMessage(body: string): string | undefined {
  try {
    const value = JSON.parse(body) as { id?: unknown; blobKey?: unknown };
    if (typeof value.id === 'string') return value.id;
    return typeof value.blobKey === 'string' ? /^events\/([A-Za-z0-9_-]+)\.json$/.exec(value.blobKey)?.[1] : undefined;
  } catch {
    return undefined;
  }
}

/** The deliveries the intake refused lately, newest first. */
export function refusedDeliveries(recent: RecentEvents): RefusedView[] {
  return recent
    .list()
    .flatMap((r) => (r.refused ? [{ ...r.refused, at: r.queuedAt }] : []))
    .slice(0, shownRefused);
}

/** A hook's URL, as its provider shows it (the collection service's carries its connection's secret token and is not shown). */
function webhookUrlOf(ctx: AppContext, sub: Subscription): { webhookUrl?: string } {
  const url = ctx.providers[triggerCatalogOf(ctx.providers)[sub.trigger].provider].hooks.webhookUrl(ctx, sub);
  return url === undefined ? {} : { webhookUrl: url };
}

export async function consoleData(
  ctx: AppContext,
  queues: LocalQueues,
  recent: RecentEvents,
  pageQuery: URLSearchParams,
  circuit?: CircuitBoard,
): Promise<ConsoleData> {
  const [connections, keys, subscriptions, events, deadLetters] = await Promise.all([
    new ConnectionRepo(ctx.store).list(),
    new ApiKeyRepo(ctx.store).list(),
    new SubscriptionRepo(ctx.store).list(),
    eventsPage(ctx, queues, pageQuery),
    queues.deadLetters.list(shownDeadLetters).then((list) => summarizeDeadLetters(list, ctx.blobs)),
  ]);
  const lastBySubscription = new Map<string, EventView>();
  for (const e of events.events) if (!lastBySubscription.has(e.subscriptionId)) lastBySubscription.set(e.subscriptionId, e);
  return {
    connections,
    keys,
    subscriptions: subscriptions.map((s) => ({
      ...s,
      ...webhookUrlOf(ctx, s),
      ...(lastBySubscription.has(s.id) ? { lastEvent: lastBySubscription.get(s.id) } : {}),
    })),
    events,
    refused: refusedDeliveries(recent),
    deadLetters,
    deadLetterDepth: queues.dlq.size(),
    ...(ctx.config.agentRuntimeUrl ? { agentRuntimeUrl: ctx.config.agentRuntimeUrl } : {}),
    ...(circuit && ctx.config.agentRuntimeUrl ? { circuit: circuit.snapshot() } : {}),
  };
}
