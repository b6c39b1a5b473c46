import type { AppContext } from '../../../ports/app-context';
import { triggerCatalogOf } from '../../../ports/provider-contract';
import type { MappedEvent } from '../../../domain/mapping/types';
import type { Connection, Subscription } from '../../../domain/model';
import { buildTriggerEvents } from '../../../dispatch/fan-out';
import type { TriggerEvent } from '../../../domain/model';

/** How the items of an unordered list are told apart and read as occurrences. */
export interface UnseenItems {
  /** What the items are, in the event's delivery id and the log (`tag`, `watcher`). */
  kind: string;
  keyOf(item: Record<string, unknown>): string | undefined;
  map(item: unknown, repository: string): MappedEvent | undefined;
}

/**
 * The items of a list with no order and no time (tags, watchers) that `seen` does not hold
 * yet, as `sub`'s events; `seen` gains their keys. An item without a key or of an unexpected
 * shape is skipped (the latter logged), and its delivery id is its key, so a round repeated
 * after a crash makes the same events, which dispatch drops.
 */
export function eventsOfUnseen(
  ctx: AppContext,
  connection: Connection,
  sub: Subscription,
  items: readonly Record<string, unknown>[],
  seen: Set<string>,
  how: UnseenItems,
): TriggerEvent[] {
  const repository = sub.repository ?? '';
  const occurredAt = new Date(ctx.clock.now()).toISOString();
  const subscriptions = new Map([[sub.trigger, [sub]]]);
  return items.flatMap((item) => {
    const key = how.keyOf(item);
    if (key === undefined || seen.has(key)) return [];
    seen.add(key);
    const mapped = how.map(item, repository);
    if (!mapped) {
      ctx.logger.warn(`polled ${how.kind} does not have the expected shape; skipped`, { subscriptionId: sub.id });
      return [];
    }
    return buildTriggerEvents({
      catalog: triggerCatalogOf(ctx.providers),
      connection,
      subscriptions,
      mapped: [mapped],
      deliveryId: `poll:${sub.id}:${how.kind}:${key}`,
      occurredAt,
    });
  });
}
