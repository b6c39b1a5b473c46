import { describe, expect, it } from 'vitest';
import { circuitLine } from '../../local/console/render';

describe("the console's line on the dispatch circuit", () => {
  it('says the events are being sent while it is closed, with the recent failures', () => {
    const line = circuitLine({ circuit: { state: 'closed', failures: 3, samples: 50, opened: 0 } });
    expect(line).toContain('closed');
    expect(line).toContain('3 of the last 50 attempts failed');
  });

  it('says nothing is sent while it is open, until when, and why', () => {
    const openUntil = Date.parse('2026-11-22T10:05:00Z');
    const failing = circuitLine({ circuit: { state: 'open', failures: 0, samples: 0, opened: 1, openUntil, reason: 'failures' } });
    expect(failing).toContain('not sending until');
    expect(failing).toContain('2026-11-22 10:05:00');
    expect(failing).toContain('most recent attempts failed');
    const paused = circuitLine({ circuit: { state: 'open', failures: 0, samples: 0, opened: 2, openUntil, reason: 'retry_after' } });
    expect(paused).toContain('Retry-After');
  });

  it('says one probe goes while it is half-open, and shows nothing without a circuit', () => {
    expect(circuitLine({ circuit: { state: 'half_open', failures: 0, samples: 0, opened: 1 } })).toContain('one probe');
    expect(circuitLine({})).toBe('');
  });
});
