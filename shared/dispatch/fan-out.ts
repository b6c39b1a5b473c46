import type { AppContext } from '../ports/app-context';
import { blobKeyFor, eventIdOfPointer, toQueueMessage } from './event-message';
import type { Item } from '../ports';
import { putCoalesced } from '../store/coalesced-puts';
import { bodyRow, queuedSummary, summaryRow } from '../store/event-history';
import type { MappedEvent } from '../domain/mapping/types';
import type { Connection, Subscription, TriggerEvent } from '../domain/model';
import { matchesSubscription } from '../domain/subscription-match';
import type { TriggerId } from '../domain/triggers';
import type { TriggerCatalog } from '../domain/trigger-catalog';
import { stableId } from '../domain/stable-id';
import { SubscriptionRepo } from '../store/subscription-repo';
import { isRepositoryAllowed } from '../domain/allow-list';

/**
 * The event id the agent runtime dedupes on: stable across redeliveries of the delivery,
 * and for occurrences that must be announced once whatever delivery carries them (a commit
 * pushed to a second branch, a tag seen in `create` and `push`) independent of the delivery.
 */
export function triggerEventId(subscriptionId: string, mapped: Pick<MappedEvent, 'trigger' | 'dedupeKey'>, deliveryId: string): string {
  const occurrence = mapped.dedupeKey === 'delivery' ? `delivery:${deliveryId}` : mapped.dedupeKey;
  return stableId('evt_', [subscriptionId, occurrence, mapped.trigger]);
}

/** The event's repository (the subscription matched it, by id or name) is in the allow-list, by id when known. */
function allowListed(connection: Connection, sub: Subscription, mapped: MappedEvent): boolean {
  const repository = mapped.facts.repository ?? sub.repository;
  return repository === undefined || isRepositoryAllowed(connection, repository, mapped.facts.repositoryId);
}

export interface FanOutInput {
  /** The trigger catalog: which filters each trigger accepts. */
  catalog: TriggerCatalog;
  connection: Connection;
  /** Subscriptions that may receive the events, by trigger (one route Query each). */
  subscriptions: ReadonlyMap<TriggerId, readonly Subscription[]>;
  mapped: readonly MappedEvent[];
  deliveryId: string;
  occurredAt: string;
}

/** One trigger event per (matching subscription, mapped event), without repeats. */
export function buildTriggerEvents(input: FanOutInput): TriggerEvent[] {
  const out = new Map<string, TriggerEvent>();
  for (const mapped of input.mapped) {
    for (const sub of input.subscriptions.get(mapped.trigger) ?? []) {
      if (sub.connectionId !== input.connection.id) continue;
      if (!matchesSubscription(sub, mapped, input.catalog) || !allowListed(input.connection, sub, mapped)) continue;
      const id = triggerEventId(sub.id, mapped, input.deliveryId);
      if (out.has(id)) continue;
      out.set(id, {
        id,
        trigger: mapped.trigger,
        subscriptionId: sub.id,
        agentId: sub.agentId,
        connectionId: sub.connectionId,
        deliveryId: input.deliveryId,
        occurredAt: input.occurredAt,
        event: mapped.event,
      });
    }
  }
  return [...out.values()];
}

/** The subscriptions of each trigger's route partition: one Query per distinct trigger. */
export async function subscriptionsByRoute(
  ctx: Pick<AppContext, 'store'>,
  triggers: readonly TriggerId[],
  route: (t: TriggerId) => string,
): Promise<Map<TriggerId, Subscription[]>> {
  const repo = new SubscriptionRepo(ctx.store);
  const distinct = [...new Set(triggers)];
  const found = await Promise.all(distinct.map((t) => repo.byRoute(route(t))));
  return new Map(distinct.map((t, i) => [t, found[i] ?? []]));
}

/**
 * Puts the events on the dispatch queue (big bodies aside first, then ONE sendBatch) and
 * answers their history rows (store/event-history.ts), for the caller to write with the marks
 * it makes next: written by the same call, they cost nothing more.
 */
export async function queueEvents(ctx: Pick<AppContext, 'queue' | 'blobs' | 'clock'>, events: readonly TriggerEvent[]): Promise<Item[]> {
  if (events.length === 0) return [];
  const messages = await Promise.all(events.map((e) => toQueueMessage(ctx, e)));
  await ctx.queue.sendBatch(messages);
  const now = ctx.clock.now();
  return events.flatMap((e, i) => historyRowsOfQueued(e, messages[i]?.body ?? '', now));
}

/** The summary and body rows of an event just queued as `messageBody`. */
export function historyRowsOfQueued(event: TriggerEvent, messageBody: string, nowMs: number): Item[] {
  const blobKey = eventIdOfPointer(messageBody) !== undefined ? blobKeyFor(event.id) : undefined;
  return [
    summaryRow(queuedSummary(event, nowMs, event.replayOf), nowMs),
    bodyRow(event.id, nowMs, blobKey ? { blobKey } : { json: messageBody }),
  ];
}

/**
 * Writes history rows; a failure is logged and counted, never passed on: the events are
 * queued and will be delivered, only their history is missing (the dispatch writes it anew).
 */
export async function writeHistory(ctx: Pick<AppContext, 'store' | 'logger' | 'metrics'>, rows: readonly Item[]): Promise<void> {
  if (rows.length === 0) return;
  await putCoalesced(ctx.store, rows).catch((e: unknown) => {
    ctx.metrics.count('event_history_write_failed');
    ctx.logger.warn('could not write the history of queued events', { error: e });
  });
}

/** Puts the events on the dispatch queue (queueEvents), then writes their history. */
export async function enqueueEvents(
  ctx: Pick<AppContext, 'queue' | 'blobs' | 'clock' | 'store' | 'logger' | 'metrics'>,
  events: readonly TriggerEvent[],
): Promise<void> {
  await writeHistory(ctx, await queueEvents(ctx, events));
}
