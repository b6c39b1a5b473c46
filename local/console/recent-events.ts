import { eventIdOfPointer } from '../../shared/dispatch/event-message';
import type { RefusedDelivery } from '../../shared/intake/intake-source';
import type { BlobStore, Clock, OutgoingMessage, Queue } from '../../shared/ports';

/**
 * The trigger events this process queued lately, newest first, for the console: nothing
 * else records an event once it is delivered (the queue forgets it, the dispatch claim keeps
 * only its id). Kept in memory, bounded by count and by bytes: a restart forgets them,
 * while the queue and the dead-letter queue still hold every event not yet delivered.
 */
export const maxRecentEvents = 100;
export const maxRecentBytes = 16 * 1024 * 1024;

export interface RecentEvent {
  eventId: string;
  /** The trigger event's JSON as queued (a claim-check event's, read from the blob store). */
  body?: string;
  /** When it was (last) put on the queue, epoch ms. */
  queuedAt: number;
  /** The event this one replays (console replay). */
  replayOf?: string;
  /** A delivery the intake refused (its body did not fit its event): nothing was queued for it. */
  refused?: { deliveryId: string; event: string; reason: string };
}

/** How the queue's producers name a trigger event's message: by the event's id (event-message.ts, dispatch's re-enqueue). */
const eventIdFormat = /^evt_[A-Za-z0-9_-]+$/;
/** A claim-check pointer is `{"blobKey":"events/<id>.json"}` (event-message.ts): anything else is an event itself. */
const maxPointerChars = 512;
const isPointerShaped = (body: string) => body.length <= maxPointerChars && body.startsWith('{"blobKey":');

function eventIdOfBody(body: string): string | undefined {
  try {
    const id = (JSON.parse(body) as { id?: unknown }).id;
    return typeof id === 'string' ? id : undefined;
  } catch {
    return undefined;
  }
}

export class RecentEvents {
  private readonly events = new Map<string, RecentEvent>();
  private readonly replays = new Map<string, string>();
  private bytes = 0;

  constructor(
    private readonly clock: Clock,
    private readonly blobs: Pick<BlobStore, 'get'>,
  ) {}

  /** The queue, recording each event it accepts (after the send succeeded: a refused send recorded nothing). */
  watch(queue: Queue): Queue {
    return {
      sendBatch: async (messages: OutgoingMessage[]) => {
        await queue.sendBatch(messages);
        // On the intake's path: nothing here parses an inline event or waits for a blob.
        for (const m of messages) this.note(m);
      },
    };
  }

  /** Marks the next queuing of `eventId` as a replay of `originalId`. */
  replaying(eventId: string, originalId: string): void {
    this.replays.set(eventId, originalId);
  }

  /**
   * Records a delivery the intake refused, so that it shows among the recent events with
   * why (intake-source.ts `IntakeObserver`). Listed under `refused:<delivery id>`.
   */
  refused(d: RefusedDelivery): void {
    const eventId = `refused:${d.deliveryId}`;
    const previous = this.events.get(eventId);
    if (previous) this.drop(eventId, previous);
    const reason = `${d.reason}: ${d.keys.join(', ')}`.slice(0, 500);
    this.events.set(eventId, { eventId, queuedAt: this.clock.now(), refused: { deliveryId: d.deliveryId, event: d.event, reason } });
    this.trim();
  }

  list(): RecentEvent[] {
    return [...this.events.values()].reverse();
  }

  get(eventId: string): RecentEvent | undefined {
    return this.events.get(eventId);
  }

  private note(m: OutgoingMessage): void {
    const pointed = isPointerShaped(m.body) ? eventIdOfPointer(m.body) : undefined;
    const eventId = pointed ?? (eventIdFormat.test(m.id) ? m.id : eventIdOfBody(m.body));
    if (eventId === undefined) return;
    const previous = this.events.get(eventId);
    if (previous) this.drop(eventId, previous);
    const replayOf = this.replays.get(eventId) ?? previous?.replayOf;
    this.replays.delete(eventId);
    const entry: RecentEvent = {
      eventId,
      queuedAt: this.clock.now(),
      ...(pointed === undefined ? { body: m.body } : {}),
      ...(replayOf ? { replayOf } : {}),
    };
    this.events.set(eventId, entry);
    this.bytes += entry.body?.length ?? 0;
    this.trim();
    if (pointed !== undefined) void this.readClaimChecked(entry, m.body);
  }

  /** A claim-check event's bytes are in the blob store until it is delivered: fetched aside, into its entry if it is still listed. */
  private async readClaimChecked(entry: RecentEvent, pointer: string): Promise<void> {
    const blobKey = (JSON.parse(pointer) as { blobKey: string }).blobKey;
    const body = (await this.blobs.get(blobKey).catch(() => undefined))?.toString('utf8');
    if (body === undefined || this.events.get(entry.eventId) !== entry) return;
    entry.body = body;
    this.bytes += body.length;
    this.trim();
  }

  private trim(): void {
    for (const [id, e] of this.events) {
      if (this.events.size <= maxRecentEvents && this.bytes <= maxRecentBytes) break;
      this.drop(id, e);
    }
  }

  private drop(id: string, e: RecentEvent): void {
    this.events.delete(id);
    this.bytes -= e.body?.length ?? 0;
  }
}
