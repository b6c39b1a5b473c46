import type { Clock } from '../ports';

export type CircuitState = 'closed' | 'open' | 'half_open';

export interface CircuitOptions {
  /** Outcomes remembered (the last M). */
  window: number;
  /** Fewer outcomes than this in the window never open the circuit (one failure of one is no pattern). */
  minSamples: number;
  /** Share of failures in the window that opens the circuit (the N of "N of the last M"). */
  failureRatio: number;
  /** Outcomes older than this no longer count: the window describes the runtime now, not an hour ago. */
  maxAgeMs: number;
  /** First open spell; each failed probe doubles it, up to `maxOpenMs`. */
  openMs: number;
  maxOpenMs: number;
  /** Longest wait a `Retry-After` can ask for (the queue's delay limit, 15 minutes). */
  maxRetryAfterMs: number;
}

/**
 * The defaults: 30 failures of the last 50 within a minute open it. An agent runtime that
 * fails one POST in five (an overloaded one answering 503s and timing out now and then) stays
 * well below, so its events keep flowing at full pace and are retried one by one; one that
 * fails most of them is left alone, probed once after 5 s, then after 10, 20 ... 5 minutes.
 */
export const defaultCircuitOptions: CircuitOptions = {
  window: 50,
  minSamples: 10,
  failureRatio: 0.6,
  maxAgeMs: 60_000,
  openMs: 5_000,
  maxOpenMs: 300_000,
  maxRetryAfterMs: 900_000,
};

/** Whether an attempt may go now: `go` (closed), `probe` (the one attempt of a half-open circuit), or wait until `untilMs`. */
export type Admission = { kind: 'go' } | { kind: 'probe' } | { kind: 'wait'; untilMs: number };

export interface CircuitSnapshot {
  state: CircuitState;
  /** Failures and outcomes in the current window. */
  failures: number;
  samples: number;
  /** While open: when the next probe may go (epoch ms). */
  openUntil?: number;
  /** Why it last opened. */
  reason?: 'failures' | 'retry_after';
  /** Times it opened since this process started. */
  opened: number;
}

/**
 * A circuit breaker over the agent runtime, on the injected clock: closed -> open after
 * `failureRatio` of the last `window` attempts failed (or when the runtime asks for a pause
 * with `Retry-After`) -> half-open once the open spell is over, letting exactly one probe
 * through -> closed when the probe is taken, open again (for twice as long) when it is not.
 * It only decides whether to send; what happens to an event that may not go is the caller's.
 * One per process (local runtime) or per container (Lambda): see docs/reliability.md.
 */
export class DispatchCircuit {
  private outcomes: Array<{ at: number; failed: boolean }> = [];
  private openUntil = 0;
  private state: CircuitState = 'closed';
  private spellMs: number;
  private probing = false;
  private reason: CircuitSnapshot['reason'];
  private opened = 0;

  constructor(
    private readonly clock: Clock,
    private readonly options: CircuitOptions = defaultCircuitOptions,
    /** Told each time the circuit opens (a metric, a log line). */
    private readonly onOpen: (snapshot: CircuitSnapshot) => void = () => {},
  ) {
    this.spellMs = options.openMs;
  }

  /** Asks to send one attempt. A `probe` must be followed by `record` (or `abandon`), or the circuit stays half-open. */
  admit(): Admission {
    const now = this.clock.now();
    if (this.state === 'open') {
      if (now < this.openUntil) return { kind: 'wait', untilMs: this.openUntil };
      this.state = 'half_open';
    }
    if (this.state === 'closed') return { kind: 'go' };
    if (this.probing) return { kind: 'wait', untilMs: now + this.options.openMs };
    this.probing = true;
    return { kind: 'probe' };
  }

  /** Whether nothing is known of the runtime here yet: closed, with no outcome in the window (a new container, a quiet minute, a fresh close). */
  untried(): boolean {
    this.trim(this.clock.now());
    return this.state === 'closed' && this.outcomes.length === 0;
  }

  /** How many attempts may start now without being turned away: all, one probe, or none. */
  allowance(): number {
    const now = this.clock.now();
    if (this.state === 'closed') return Number.POSITIVE_INFINITY;
    if (this.state === 'open' && now < this.openUntil) return 0;
    return this.probing ? 0 : 1;
  }

  /**
   * When an attempt turned away now may go: the end of the open spell, or, while the one probe
   * is out, one open spell from now (what `admit` answers, without taking the probe).
   */
  waitsUntil(): number {
    const now = this.clock.now();
    return this.state === 'open' && now < this.openUntil ? this.openUntil : now + this.options.openMs;
  }

  /**
   * The answer of an attempt. `retryAfterSeconds`: the runtime asked for a pause; it is
   * honoured for every event (capped), not only the one it answered.
   */
  record(outcome: { failed: boolean; retryAfterSeconds?: number; probe?: boolean }): void {
    const now = this.clock.now();
    if (outcome.probe) this.probing = false;
    if (outcome.retryAfterSeconds !== undefined && outcome.retryAfterSeconds > 0) {
      const pause = Math.min(this.options.maxRetryAfterMs, outcome.retryAfterSeconds * 1000);
      this.open(now, pause, 'retry_after');
      return;
    }
    if (outcome.probe) {
      if (outcome.failed) this.open(now, Math.min(this.options.maxOpenMs, this.spellMs * 2), 'failures');
      else this.close();
      return;
    }
    this.outcomes.push({ at: now, failed: outcome.failed });
    this.trim(now);
    if (this.state !== 'closed') return;
    const failures = this.outcomes.filter((o) => o.failed).length;
    if (this.outcomes.length >= this.options.minSamples && failures >= this.options.failureRatio * this.outcomes.length) {
      this.open(now, this.options.openMs, 'failures');
    }
  }

  /** A probe that ended without an answer of the runtime's own (our side failed): the next one may go. */
  abandon(probe: boolean): void {
    if (probe) this.probing = false;
  }

  snapshot(): CircuitSnapshot {
    const now = this.clock.now();
    this.trim(now);
    const state: CircuitState = this.state === 'open' && now >= this.openUntil ? 'half_open' : this.state;
    return {
      state,
      failures: this.outcomes.filter((o) => o.failed).length,
      samples: this.outcomes.length,
      ...(state === 'open' ? { openUntil: this.openUntil } : {}),
      ...(this.reason ? { reason: this.reason } : {}),
      opened: this.opened,
    };
  }

  private open(now: number, spellMs: number, reason: 'failures' | 'retry_after'): void {
    const wasOpen = this.state !== 'closed';
    this.state = 'open';
    this.spellMs = reason === 'failures' ? spellMs : this.spellMs;
    this.openUntil = Math.max(wasOpen ? this.openUntil : 0, now + spellMs);
    this.reason = reason;
    this.outcomes = [];
    if (!wasOpen) {
      this.opened++;
      this.onOpen(this.snapshot());
    }
  }

  private close(): void {
    this.state = 'closed';
    this.spellMs = this.options.openMs;
    this.outcomes = [];
  }

  private trim(now: number): void {
    const { window, maxAgeMs } = this.options;
    const from = Math.max(0, this.outcomes.length - window);
    const keep = this.outcomes.slice(from).filter((o) => now - o.at <= maxAgeMs);
    if (keep.length !== this.outcomes.length) this.outcomes = keep;
  }
}
