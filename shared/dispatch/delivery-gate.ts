import { isRepositoryAllowed } from '../domain/allow-list';
import { takesEvents, type TriggerEvent } from '../domain/model';
import type { AppContext } from '../ports/app-context';
import { ConnectionRepo } from '../store/connection-repo';
import { subjectOf } from '../store/event-history';
import { SubscriptionRepo } from '../store/subscription-repo';

/** Why an event may not be delivered (any more). */
export type GateRefusal =
  | 'connection_gone'
  | 'connection_inactive'
  | 'subscription_gone'
  | 'subscription_changed'
  | 'repository_not_allowed';

const said: Record<GateRefusal, string> = {
  connection_gone: 'its connection was disconnected',
  connection_inactive: 'its connection no longer takes events (its GitHub App installation is deleted or suspended)',
  subscription_gone: 'its subscription was deleted',
  subscription_changed: 'its subscription no longer names this connection, trigger and agent',
  repository_not_allowed: "its repository is no longer in the connection's allow-list",
};

/** The refusal as a sentence ("... because ..."). */
export function gateReason(refusal: GateRefusal): string {
  return said[refusal];
}

/**
 * The gates a first delivery passed at fan-out, checked again now, from the table (no cache):
 * the connection exists and takes events, the subscription exists and still names the event's
 * connection, trigger and agent, and the event's repository is in the connection's allow-list.
 * Subscriptions are never edited, so their filters still match. Two reads, in parallel.
 * Undefined when every gate is open.
 */
export async function deliveryGate(
  ctx: Pick<AppContext, 'store'>,
  event: Pick<TriggerEvent, 'connectionId' | 'subscriptionId' | 'trigger' | 'agentId' | 'event'>,
): Promise<GateRefusal | undefined> {
  const [connection, sub] = await Promise.all([
    new ConnectionRepo(ctx.store).get(event.connectionId),
    new SubscriptionRepo(ctx.store).get(event.subscriptionId),
  ]);
  if (!connection) return 'connection_gone';
  if (!takesEvents(connection.status)) return 'connection_inactive';
  if (!sub) return 'subscription_gone';
  if (sub.connectionId !== event.connectionId || sub.trigger !== event.trigger || sub.agentId !== event.agentId) {
    return 'subscription_changed';
  }
  const repository = sub.repository ?? subjectOf(event.event).repository;
  if (repository !== undefined && !isRepositoryAllowed(connection, repository)) return 'repository_not_allowed';
  return undefined;
}
