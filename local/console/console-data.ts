import { randomBytes } from 'node:crypto';
import type { LocalQueues } from '../../shared/adapters/local/local-queues';
import { summarizeDeadLetters, type DeadLetterSummary } from '../admin/dead-letters';
import type { AppContext } from '../../shared/ports/app-context';
import { ApiKeyRepo, type ApiKeyRecord } from '../../shared/store/api-key-repo';
import { ConnectionRepo } from '../../shared/store/connection-repo';
import { eventIdOfPointer } from '../../shared/dispatch/event-message';
import { AppError } from '../../shared/domain/errors';
import type { Connection, Subscription, TriggerEvent } from '../../shared/domain/model';
import { enqueueEvents } from '../../shared/dispatch/fan-out';
import { keys } from '../../shared/store/table-design';
import { webhookUrl } from '../../shared/subscriptions/endpoint-hook';
import { SubscriptionRepo } from '../../shared/store/subscription-repo';
import type { RecentEvents } from './recent-events';
import type { CircuitSnapshot, DispatchCircuit } from '../../shared/dispatch/circuit';

/** How many events and dead letters the page shows. */
export const shownEvents = 50;
export const shownDeadLetters = 100;

export type DeliveryStatus = 'queued' | 'retrying' | 'delivering' | 'delivered' | 'logged' | 'dead_lettered' | 'finished' | 'refused';

export interface EventView {
  eventId: string;
  queuedAt?: number;
  trigger?: string;
  subscriptionId?: string;
  agentId?: string;
  deliveryId?: string;
  occurredAt?: string;
  status: DeliveryStatus;
  /** Deliveries tried so far (while still queued). */
  attempts?: number;
  /** The dead letter's message id, for redrive. */
  deadLetterId?: string;
  replayOf?: string;
  /** The whole trigger event as sent to the agent runtime, when this process has it. */
  payload?: TriggerEvent;
  /** Why the intake refused the delivery (status `refused`): nothing was queued for it. */
  reason?: string;
  /** The code host's event name of a refused delivery. */
  event?: string;
}

export interface SubscriptionView extends Subscription {
  webhookUrl?: string;
  lastEvent?: EventView;
}

export interface ConsoleData {
  connections: Connection[];
  /** Scoped keys (never the keys themselves). */
  keys: ApiKeyRecord[];
  subscriptions: SubscriptionView[];
  events: EventView[];
  deadLetters: DeadLetterSummary[];
  deadLetterDepth: number;
  agentRuntimeUrl?: string;
  /** The consumer's circuit over the agent runtime, when the runtime runs one. */
  circuit?: CircuitSnapshot;
}

function parseEvent(body: string | undefined): TriggerEvent | undefined {
  if (body === undefined) return undefined;
  try {
    const value = JSON.parse(body) as TriggerEvent;
    return typeof value?.id === 'string' && typeof value.trigger === 'string' ? value : undefined;
  } catch {
    return undefined;
  }
}

/** The event a queued message carries (inline, or through its claim-check blob). */
async function eventOfMessage(ctx: Pick<AppContext, 'blobs'>, body: string): Promise<TriggerEvent | undefined> {
  if (eventIdOfPointer(body) === undefined) return parseEvent(body);
  const blobKey = (JSON.parse(body) as { blobKey: string }).blobKey;
  return parseEvent((await ctx.blobs.get(blobKey).catch(() => undefined))?.toString('utf8'));
}

/**
 * Recent events with where each one is: in the dead-letter queue, still in the queue (with
 * its tries), or gone from it, delivered per its dispatch claim (or only logged, without
 * AGENT_RUNTIME_URL). Events this process did not queue but the queues still hold (from
 * before a restart) are shown too.
 */
export async function recentEventViews(ctx: AppContext, queues: LocalQueues, recent: RecentEvents): Promise<EventView[]> {
  const views = new Map<string, EventView>();
  for (const r of recent.list()) {
    if (r.refused) {
      const { deliveryId, event, reason } = r.refused;
      views.set(r.eventId, { eventId: r.eventId, queuedAt: r.queuedAt, status: 'refused', deliveryId, event, reason });
      continue;
    }
    const payload = parseEvent(r.body);
    views.set(r.eventId, {
      eventId: r.eventId,
      queuedAt: r.queuedAt,
      status: 'finished',
      ...(r.replayOf ? { replayOf: r.replayOf } : {}),
      ...(payload ? { payload } : {}),
    });
  }
  const place = async (body: string, sentAt: number, status: DeliveryStatus, extra: Partial<EventView>) => {
    const event = await eventOfMessage(ctx, body);
    if (!event) return;
    const view = views.get(event.id) ?? { eventId: event.id, queuedAt: sentAt, status, payload: event };
    views.set(event.id, { ...view, ...extra, status, payload: view.payload ?? event });
  };
  for (const m of queues.queue.peek(1000))
    await place(m.body, m.sentAt, m.receiveCount > 0 ? 'retrying' : 'queued', { attempts: m.receiveCount });
  for (const m of queues.dlq.peek(shownDeadLetters))
    await place(m.body, m.sentAt, 'dead_lettered', { deadLetterId: m.id, attempts: m.receiveCount });
  const list = [...views.values()].sort((a, b) => (b.queuedAt ?? 0) - (a.queuedAt ?? 0)).slice(0, shownEvents);
  for (const v of list) {
    if (v.status !== 'finished' && v.status !== 'retrying') continue;
    const claim = await ctx.store.get(keys.dispatchClaim(v.eventId));
    if (claim?.state === 'done') v.status = 'delivered';
    else if (claim?.state === 'in_progress') v.status = 'delivering';
    else if (v.status === 'finished' && ctx.config.agentRuntimeUrl === undefined) v.status = 'logged';
  }
  for (const v of list) {
    if (!v.payload) continue;
    v.trigger = v.payload.trigger;
    v.subscriptionId = v.payload.subscriptionId;
    v.agentId = v.payload.agentId;
    v.deliveryId = v.payload.deliveryId;
    v.occurredAt = v.payload.occurredAt;
  }
  return list;
}

export async function consoleData(
  ctx: AppContext,
  queues: LocalQueues,
  recent: RecentEvents,
  circuit?: DispatchCircuit,
): Promise<ConsoleData> {
  const [connections, keys, subscriptions, events, deadLetters] = await Promise.all([
    new ConnectionRepo(ctx.store).list(),
    new ApiKeyRepo(ctx.store).list(),
    new SubscriptionRepo(ctx.store).list(),
    recentEventViews(ctx, queues, recent),
    queues.deadLetters.list(shownDeadLetters).then((list) => summarizeDeadLetters(list, ctx.blobs)),
  ]);
  const lastBySubscription = new Map<string, EventView>();
  for (const e of events) if (e.subscriptionId && !lastBySubscription.has(e.subscriptionId)) lastBySubscription.set(e.subscriptionId, e);
  return {
    connections,
    keys,
    subscriptions: subscriptions.map((s) => ({
      ...s,
      ...(s.delivery === 'webhook' && s.endpointId ? { webhookUrl: webhookUrl(ctx, s.endpointId) } : {}),
      ...(lastBySubscription.has(s.id) ? { lastEvent: lastBySubscription.get(s.id) } : {}),
    })),
    events,
    deadLetters,
    deadLetterDepth: queues.dlq.size(),
    ...(ctx.config.agentRuntimeUrl ? { agentRuntimeUrl: ctx.config.agentRuntimeUrl } : {}),
    ...(circuit && ctx.config.agentRuntimeUrl ? { circuit: circuit.snapshot() } : {}),
  };
}

/**
 * Replay: the stored event queued again as a new event (a fresh id, so the agent runtime,
 * which drops repeated ids, takes it), the way the intake queues events (enqueueEvents).
 */
export async function replayEvent(ctx: AppContext, queues: LocalQueues, recent: RecentEvents, eventId: string): Promise<string> {
  const found = (await recentEventViews(ctx, queues, recent)).find((e) => e.eventId === eventId) ?? undefined;
  const original = found?.payload ?? parseEvent(recent.get(eventId)?.body);
  if (!original)
    throw new AppError('not_found', `No recent event ${eventId} with its payload; only events this runtime queued lately can be replayed`);
  const replay: TriggerEvent = { ...original, id: `evt_replay_${randomBytes(12).toString('hex')}` };
  recent.replaying(replay.id, original.id);
  await enqueueEvents(ctx, [replay]);
  ctx.logger.info('trigger event replayed from the console', { eventId: original.id, replayId: replay.id, trigger: original.trigger });
  return replay.id;
}
