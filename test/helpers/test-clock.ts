import type { Clock } from '../../shared/ports';

/** A clock that moves only when told: time-dependent verdicts without waiting. */
export class TestClock implements Clock {
  constructor(public ms = Date.parse('2026-11-22T10:00:00Z')) {}
  now(): number {
    return this.ms;
  }
  advance(ms: number): void {
    this.ms += ms;
  }
}
