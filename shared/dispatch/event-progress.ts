import type { TriggerEvent } from '../domain/model';
import type { InboundMessage, Item } from '../ports';
import type { AppContext } from '../ports/app-context';
import {
  bodyRow,
  queuedSummary,
  readSummaryBatched,
  summaryRow,
  withAttempt,
  withStatus,
  type Attempt,
  type EventStatus,
  type EventSummary,
} from '../store/event-history';
import { blobKeyFor, eventIdOfPointer } from './event-message';
import { putCoalesced } from '../store/coalesced-puts';

/**
 * The dispatch's side of an event's history (store/event-history.ts): before a POST the
 * summary is read (from the moment the event is taken, so no added wait; with the other
 * events' of the batch, in one call) and written back with the outcome, in the done mark's own
 * write when delivered, in a write shared with the other events of the same turn otherwise. An
 * event that is only logged or settled made no POST: its summary is written without a read. A
 * summary missing (an event queued before history was kept, or whose history
 * write failed) is made anew, with its body, so that it can still be found and replayed.
 */
export class EventProgress {
  private prior: Promise<EventSummary | undefined> | undefined;

  constructor(
    private readonly ctx: Pick<AppContext, 'store' | 'clock' | 'logger' | 'metrics'>,
    private readonly event: TriggerEvent,
    private readonly message: Pick<InboundMessage, 'body' | 'sentAt'>,
  ) {}

  /** Starts reading the summary, for the rows of an attempt to build on. */
  readAhead(): this {
    this.prior ??= readSummaryBatched(this.ctx.store, this.event.id).catch((e: unknown) => {
      this.ctx.logger.warn('could not read the event history', { eventId: this.event.id, error: e });
      return undefined;
    });
    return this;
  }

  /** The rows that record `attempt` and the event's new status. */
  async attemptRows(attempt: Attempt, status: EventStatus): Promise<Item[]> {
    return this.rows(await this.readAhead().prior, (s, now) => withAttempt(s, attempt, status, now));
  }

  /** The rows of an event that ends without a POST (logged, settled by a follow-up): written as queued, then that status. */
  async statusRows(status: EventStatus): Promise<Item[]> {
    return this.rows(undefined, (s, now) => withStatus(s, status, now));
  }

  /** Writes rows, with the other events' of the same turn; a failure is logged and counted: history never holds a delivery back. */
  async write(rows: Promise<Item[]>): Promise<void> {
    try {
      await putCoalesced(this.ctx.store, await rows);
    } catch (e) {
      this.ctx.metrics.count('event_history_write_failed');
      this.ctx.logger.warn('could not write the event history', { eventId: this.event.id, error: e });
    }
  }

  private rows(prior: EventSummary | undefined, change: (s: EventSummary, nowMs: number) => EventSummary): Item[] {
    const now = this.ctx.clock.now();
    const base = prior ?? queuedSummary(this.event, this.message.sentAt ?? now, this.event.replayOf);
    const rows = [summaryRow(change(base, now), now)];
    if (!prior) {
      const pointed = eventIdOfPointer(this.message.body) !== undefined;
      rows.push(bodyRow(this.event.id, now, pointed ? { blobKey: blobKeyFor(this.event.id) } : { json: this.message.body }));
    }
    return rows;
  }
}
