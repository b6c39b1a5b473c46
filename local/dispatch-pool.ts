import type { CircuitBoard } from '../shared/dispatch/circuit-board';
import { dispatchMessage } from '../shared/dispatch/dispatch-batch';
import type { Lane } from '../shared/dispatch/lane';
import type { ProviderWork } from '../shared/dispatch/provider-work';
import type { ConsumerQueue, InboundMessage, PollableQueue } from '../shared/ports';
import type { AppContext } from '../shared/ports/app-context';

export interface DispatchPoolOptions {
  /** POSTs in flight at most. */
  size: number;
  /** While `narrow()` answers true, at most this many POSTs younger than `freshMs` (the ones still using the CPU). */
  narrowSize: number;
  narrow?: () => boolean;
  /** How long a received message stays hidden from the next receive: above the POST limit. */
  visibilitySeconds: number;
  lane: Lane;
  /** The circuits over the agent runtime, one per runtime and agent: an open one defers its own events. */
  circuits: CircuitBoard;
  /** The providers' jobs and follow-ups. */
  work: ProviderWork;
}

/** A POST older than this is waiting on the agent runtime, not on this process: it does not count against `narrowSize`. */
const freshMs = 1_000;
/** SQS hands out at most 10 messages a receive; the local queue keeps to it. */
const receiveMax = 10;

/**
 * The local consumer: a pool of in-flight deliveries, refilled from the queue as each one
 * ends, so a POST the agent runtime holds for its full 10 s holds one slot, never the
 * events received with it. Each message is deleted as soon as its own delivery is done.
 */
export class DispatchPool {
  /** By message id; `receipt` is the latest one the queue handed out for it. */
  private readonly inFlight = new Map<string, { startedAt: number; work: Promise<void>; receipt: string }>();
  private settled: Array<() => void> = [];

  constructor(
    private readonly ctx: AppContext,
    private readonly queue: PollableQueue,
    private readonly options: DispatchPoolOptions,
  ) {}

  get size(): number {
    return this.inFlight.size;
  }

  /**
   * How many more deliveries may start now: free slots and the narrowing while the intake is
   * behind. Not the circuits: each is one agent's, and an open one defers only its own events.
   */
  room(): number {
    const { size, narrowSize, narrow } = this.options;
    let room = size - this.inFlight.size;
    if (narrow?.()) {
      const now = this.ctx.clock.now();
      let fresh = 0;
      for (const f of this.inFlight.values()) if (now - f.startedAt < freshMs) fresh++;
      room = Math.min(room, narrowSize - fresh);
    }
    return Math.max(0, room);
  }

  /** Receives into the room there is and starts each delivery; returns how many started. */
  async fill(): Promise<number> {
    let started = 0;
    for (let room = this.room(); room > 0; room = this.room()) {
      const messages = await this.queue.receive(Math.min(receiveMax, room), this.options.visibilitySeconds);
      for (const m of messages) {
        const running = this.inFlight.get(m.messageId);
        // Visible again while its delivery still runs here (a process starved of CPU for
        // longer than the visibility timeout): the running one goes on, with the new receipt
        // to delete it by; a second delivery would POST the event twice.
        if (running) running.receipt = m.receiptHandle;
        else this.start(m);
      }
      started += messages.length;
      if (messages.length < Math.min(receiveMax, room)) break;
    }
    return started;
  }

  /** Resolves when the next delivery in flight ends (never, while none is). */
  nextSettled(): Promise<void> {
    return new Promise((resolve) => this.settled.push(resolve));
  }

  /** Resolves when every delivery in flight has ended. */
  async drain(): Promise<void> {
    while (this.inFlight.size > 0) await Promise.allSettled([...this.inFlight.values()].map((f) => f.work));
  }

  private start(m: InboundMessage): void {
    const { lane, circuits, work } = this.options;
    const entry = {
      startedAt: this.ctx.clock.now(),
      work: Promise.resolve(),
      receipt: m.receiptHandle,
      postpone: undefined as number | undefined,
    };
    // A postponement is applied once the delivery has left the pool: applied at once, a
    // message released with 0 (poison) would be received again while still counted in flight.
    const consumer: ConsumerQueue = {
      changeVisibility: async (_receipt, seconds) => {
        entry.postpone = seconds;
      },
    };
    entry.work = dispatchMessage(this.ctx, m, consumer, { lane: { ...lane, consumer }, circuits, work })
      .then(async (outcome) => {
        this.inFlight.delete(m.messageId);
        if (outcome === 'done') await this.queue.delete(entry.receipt);
        else if (entry.postpone !== undefined) await this.queue.changeVisibility(entry.receipt, entry.postpone);
      })
      .catch((e: unknown) => this.ctx.logger.error('dispatch failed unexpectedly', { messageId: m.messageId, error: e }))
      .finally(() => {
        this.inFlight.delete(m.messageId);
        const waiting = this.settled;
        this.settled = [];
        for (const w of waiting) w();
      });
    this.inFlight.set(m.messageId, entry);
  }
}
