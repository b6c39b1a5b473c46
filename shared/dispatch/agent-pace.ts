import type { Clock } from '../ports';

export interface PaceOptions {
  /** An answer that took at least this long counts as slow. */
  slowAnswerMs: number;
  /** Answers remembered (the last M). */
  window: number;
  /** Fewer answers than this never make an agent slow. */
  minSamples: number;
  /** Share of slow answers in the window that makes the agent slow. */
  slowRatio: number;
  /** Answers older than this no longer count: an agent slow a minute ago is given the main lane again. */
  maxAgeMs: number;
}

/**
 * Two seconds: well above an agent runtime that acknowledges first and works after (tens of
 * milliseconds), well below the 10 s limit. Half of the last 20 answers within a minute.
 */
export const defaultPaceOptions: PaceOptions = { slowAnswerMs: 2_000, window: 20, minSamples: 5, slowRatio: 0.5, maxAgeMs: 60_000 };

/**
 * How long one agent's runtime has been taking to answer, on the injected clock. An agent whose
 * answers are slow holds every main-lane batch its events are in for as long as it takes, and
 * with it the execution every other tenant's events wait for; once its recent answers are slow,
 * its events go straight to the slow lane (deferral.ts), which is sized for slow answers. It
 * forgets within `maxAgeMs`, so an agent that became quick again is measured on the main lane
 * anew. Answers on either lane count (a container takes both).
 */
export class AgentPace {
  private answers: Array<{ at: number; slow: boolean }> = [];

  constructor(
    private readonly clock: Clock,
    private readonly options: PaceOptions = defaultPaceOptions,
  ) {}

  /** An answer of the runtime (any status) and how long it took; `ms` the lane's limit when none came. */
  note(ms: number): void {
    const now = this.clock.now();
    this.answers.push({ at: now, slow: ms >= this.options.slowAnswerMs });
    this.trim(now);
  }

  /** Whether enough recent answers were noted here to judge the pace (`minSamples`); until then the containers' shared verdict is asked (shared-pace.ts). */
  known(): boolean {
    this.trim(this.clock.now());
    return this.answers.length >= this.options.minSamples;
  }

  /** Whether the latest answer noted was slow; undefined when none is remembered. */
  latestSlow(): boolean | undefined {
    this.trim(this.clock.now());
    return this.answers.at(-1)?.slow;
  }

  /** Whether most recent answers were slow. */
  isSlow(): boolean {
    this.trim(this.clock.now());
    const { minSamples, slowRatio } = this.options;
    if (this.answers.length < minSamples) return false;
    return this.answers.filter((a) => a.slow).length >= slowRatio * this.answers.length;
  }

  private trim(now: number): void {
    const { window, maxAgeMs } = this.options;
    const from = Math.max(0, this.answers.length - window);
    const keep = this.answers.slice(from).filter((a) => now - a.at <= maxAgeMs);
    if (keep.length !== this.answers.length) this.answers = keep;
  }
}
