import type { Clock } from '../../shared/ports';

/** A clock that moves only when told (or slept on): time-dependent verdicts without waiting. */
export class TestClock implements Clock {
  constructor(public ms = Date.parse('2026-11-22T10:00:00Z')) {}
  now(): number {
    return this.ms;
  }
  advance(ms: number): void {
    this.ms += ms;
  }
  /** The code's waits (the context's `sleep`) move this clock instead of taking time. */
  readonly sleep = async (ms: number): Promise<void> => {
    this.advance(Math.max(0, ms));
  };
}
