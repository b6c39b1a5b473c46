import { eventIdOfPointer } from '../../shared/dispatch/event-message';
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
}

function eventIdOf(body: string): string | undefined {
  const pointed = eventIdOfPointer(body);
  if (pointed !== undefined) return pointed;
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
        for (const m of messages) await this.note(m.body);
      },
    };
  }

  /** Marks the next queuing of `eventId` as a replay of `originalId`. */
  replaying(eventId: string, originalId: string): void {
    this.replays.set(eventId, originalId);
  }

  list(): RecentEvent[] {
    return [...this.events.values()].reverse();
  }

  get(eventId: string): RecentEvent | undefined {
    return this.events.get(eventId);
  }

  private async note(queued: string): Promise<void> {
    const eventId = eventIdOf(queued);
    if (eventId === undefined) return;
    let body: string | undefined = queued;
    if (eventIdOfPointer(queued) !== undefined) {
      // A claim-check event: its bytes are in the blob store until it is delivered.
      const blobKey = (JSON.parse(queued) as { blobKey: string }).blobKey;
      body = (await this.blobs.get(blobKey).catch(() => undefined))?.toString('utf8');
    }
    const previous = this.events.get(eventId);
    if (previous) this.drop(eventId, previous);
    const replayOf = this.replays.get(eventId) ?? previous?.replayOf;
    this.replays.delete(eventId);
    const entry: RecentEvent = {
      eventId,
      queuedAt: this.clock.now(),
      ...(body !== undefined ? { body } : {}),
      ...(replayOf ? { replayOf } : {}),
    };
    this.events.set(eventId, entry);
    this.bytes += body?.length ?? 0;
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
