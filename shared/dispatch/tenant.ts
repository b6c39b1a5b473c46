import type { TriggerEvent } from '../domain/model';

/**
 * The tenant a trigger event belongs to for fairness on the queue: its connection, one
 * owner's account at one provider, where a flood comes from. Every message of the event
 * (queued, deferred, moved to the slow lane, replayed) carries it as its group.
 */
export function tenantOf(event: Pick<TriggerEvent, 'connectionId'>): string {
  return event.connectionId;
}
