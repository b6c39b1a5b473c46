import type { Clock, Fetch, Store } from '../../shared/ports';

/**
 * A test clock that runs concurrent work in virtual time. `sleep` parks the caller on a
 * timer; the clock jumps to the earliest timer only when no tracked I/O (the store, the
 * fetch) is in flight, so every caller that could still act before that time has acted.
 * Verdicts read this clock, never the machine's: a loaded machine only makes the run slower.
 */
export class VirtualTime implements Clock {
  private ms: number;
  private timers: Array<{ at: number; wake: () => void }> = [];
  private inFlight = 0;
  private scheduled = false;
  /** Counts I/O started: an idle spell is over when it changes. */
  private started = 0;

  constructor(start = Date.parse('2026-11-22T10:00:00Z')) {
    this.ms = start;
  }

  now(): number {
    return this.ms;
  }

  readonly sleep = (ms: number): Promise<void> =>
    new Promise((wake) => {
      this.timers.push({ at: this.ms + Math.max(0, ms), wake });
      this.schedule();
    });

  /** The store with every call counted as I/O in flight. */
  trackStore(store: Store): Store {
    return new Proxy(store, {
      get: (target, key, receiver) => {
        const value = Reflect.get(target, key, receiver) as unknown;
        if (typeof value !== 'function') return value;
        return (...args: unknown[]) => this.track((value as (...a: unknown[]) => Promise<unknown>).apply(target, args));
      },
    });
  }

  /** A fetch whose answer is read in full while counted as in flight. */
  trackFetch(fetch: Fetch): Fetch {
    return (input, init) =>
      this.track(
        (async () => {
          const res = await fetch(input, init);
          const body = [101, 204, 205, 304].includes(res.status) ? null : await res.arrayBuffer();
          return new Response(body, { status: res.status, statusText: res.statusText, headers: res.headers });
        })(),
      );
  }

  private track<T>(work: Promise<T>): Promise<T> {
    this.inFlight++;
    this.started++;
    return work.finally(() => {
      this.inFlight--;
      this.schedule();
    });
  }

  private schedule(idleTurns = 0, startedBefore = this.started): void {
    if (this.scheduled && idleTurns === 0) return;
    this.scheduled = true;
    // Idle for a few macrotask turns: every continuation of the last I/O has run and started its next step.
    setImmediate(() => {
      if (this.inFlight > 0 || this.timers.length === 0) {
        this.scheduled = false;
        return;
      }
      if (this.started !== startedBefore) return this.schedule(1, this.started);
      if (idleTurns < 3) return this.schedule(idleTurns + 1, startedBefore);
      this.scheduled = false;
      const at = Math.min(...this.timers.map((t) => t.at));
      this.ms = Math.max(this.ms, at);
      const due = this.timers.filter((t) => t.at <= this.ms);
      this.timers = this.timers.filter((t) => t.at > this.ms);
      for (const t of due) t.wake();
      if (this.timers.length > 0) this.schedule();
    });
  }
}
