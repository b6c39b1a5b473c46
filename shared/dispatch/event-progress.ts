import type { TriggerEvent } from '../domain/model';
import type { InboundMessage, Item } from '../ports';
import type { AppContext } from '../ports/app-context';
import {
  bodyRow,
  queuedSummary,
  readSummary,
  summaryRow,
  withAttempt,
  withStatus,
  type Attempt,
  type EventStatus,
  type EventSummary,
} from '../store/event-history';
import { blobKeyFor, eventIdOfPointer } from './event-message';

/**
 * The dispatch's side of an event's history (store/event-history.ts): the summary is read
 * once per try, alongside the POST (no added wait), and written back with the outcome: in the
 * done mark's own write when delivered, in one write of its own otherwise. A summary missing
 * (an event queued before history was kept, or whose history write failed) is made anew,
 * with its body, so that it can still be found and replayed.
 */
export class EventProgress {
  private readonly prior: Promise<EventSummary | undefined>;

  constructor(
    private readonly ctx: Pick<AppContext, 'store' | 'clock' | 'logger' | 'metrics'>,
    private readonly event: TriggerEvent,
    private readonly message: Pick<InboundMessage, 'body' | 'sentAt'>,
  ) {
    this.prior = readSummary(ctx.store, event.id).catch((e: unknown) => {
      ctx.logger.warn('could not read the event history', { eventId: event.id, error: e });
      return undefined;
    });
  }

  /** The rows that record `attempt` and the event's new status. */
  async attemptRows(attempt: Attempt, status: EventStatus): Promise<Item[]> {
    return this.rows((s, now) => withAttempt(s, attempt, status, now));
  }

  /** The rows that record a new status without a POST (logged, settled by a follow-up). */
  async statusRows(status: EventStatus): Promise<Item[]> {
    return this.rows((s, now) => withStatus(s, status, now));
  }

  /** Writes rows on their own; a failure is logged and counted: history never holds a delivery back. */
  async write(rows: Promise<Item[]>): Promise<void> {
    try {
      await this.ctx.store.putAll(await rows);
    } catch (e) {
      this.ctx.metrics.count('event_history_write_failed');
      this.ctx.logger.warn('could not write the event history', { eventId: this.event.id, error: e });
    }
  }

  private async rows(change: (s: EventSummary, nowMs: number) => EventSummary): Promise<Item[]> {
    const now = this.ctx.clock.now();
    const prior = await this.prior;
    const base = prior ?? queuedSummary(this.event, this.message.sentAt ?? now, this.event.replayOf);
    const rows = [summaryRow(change(base, now), now)];
    if (!prior) {
      const pointed = eventIdOfPointer(this.message.body) !== undefined;
      rows.push(bodyRow(this.event.id, now, pointed ? { blobKey: blobKeyFor(this.event.id) } : { json: this.message.body }));
    }
    return rows;
  }
}
