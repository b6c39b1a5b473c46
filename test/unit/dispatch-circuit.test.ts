import { describe, expect, it } from 'vitest';
import { DispatchCircuit, defaultCircuitOptions, type CircuitSnapshot } from '../../shared/dispatch/circuit';
import { CircuitBoard, circuitKey } from '../../shared/dispatch/circuit-board';
import { TestClock } from '../helpers/test-clock';

function circuit() {
  const clock = new TestClock();
  const opened: CircuitSnapshot[] = [];
  const c = new DispatchCircuit(clock, defaultCircuitOptions, (s) => opened.push(s));
  return { clock, c, opened };
}

/** `n` attempts, every `everyNth` one failing (0: none). */
function attempts(c: DispatchCircuit, n: number, failing: (i: number) => boolean): void {
  for (let i = 0; i < n; i++) {
    expect(c.admit()).toEqual({ kind: 'go' });
    c.record({ failed: failing(i) });
  }
}

describe('the circuit over the agent runtime', () => {
  it('tells, without taking the probe, when an attempt turned away may go: as admit would answer', () => {
    const { clock, c } = circuit();
    c.record({ failed: true, retryAfterSeconds: 120 });
    expect(c.allowance()).toBe(0);
    expect(c.waitsUntil()).toBe(clock.now() + 120_000);
    clock.advance(120_000);
    // Half-open: asking leaves the probe to the next admit.
    expect(c.allowance()).toBe(1);
    expect(c.admit()).toEqual({ kind: 'probe' });
    expect(c.allowance()).toBe(0);
    expect(c.waitsUntil()).toBe(clock.now() + defaultCircuitOptions.openMs);
    expect(c.admit()).toEqual({ kind: 'wait', untilMs: c.waitsUntil() });
  });

  it('stays closed for a runtime failing one attempt in five (an overloaded one still worth sending to)', () => {
    const { c, opened } = circuit();
    attempts(c, 1000, (i) => i % 5 === 0);
    expect(c.snapshot().state).toBe('closed');
    expect(opened).toHaveLength(0);
  });

  it('opens after 30 failures of the last 50 and turns every attempt away until the open spell is over', () => {
    const { clock, c, opened } = circuit();
    attempts(c, 20, () => false);
    for (let i = 0; i < 29; i++) {
      expect(c.admit().kind).toBe('go');
      c.record({ failed: true });
    }
    expect(c.snapshot().state).toBe('closed');
    c.record({ failed: true });
    expect(c.snapshot()).toMatchObject({ state: 'open', reason: 'failures', opened: 1, openUntil: clock.now() + 5_000 });
    expect(opened).toHaveLength(1);
    expect(c.admit()).toEqual({ kind: 'wait', untilMs: clock.now() + 5_000 });
    expect(c.allowance()).toBe(0);
    clock.advance(4_999);
    expect(c.admit().kind).toBe('wait');
  });

  it('does not open on a handful of attempts, nor on failures older than a minute', () => {
    const { clock, c } = circuit();
    attempts(c, 9, () => true);
    expect(c.snapshot().state).toBe('closed');
    clock.advance(61_000);
    attempts(c, 5, () => true);
    attempts(c, 5, () => false);
    expect(c.snapshot()).toMatchObject({ state: 'closed', samples: 10, failures: 5 });
  });

  it('lets exactly one probe through once the spell is over, and closes when the probe is answered', () => {
    const { clock, c } = circuit();
    attempts(c, 10, () => true);
    clock.advance(5_000);
    expect(c.snapshot().state).toBe('half_open');
    expect(c.allowance()).toBe(1);
    expect(c.admit()).toEqual({ kind: 'probe' });
    expect(c.allowance()).toBe(0);
    expect(c.admit().kind).toBe('wait');
    c.record({ failed: false, probe: true });
    expect(c.snapshot()).toMatchObject({ state: 'closed', samples: 0 });
    expect(c.admit()).toEqual({ kind: 'go' });
  });

  it('opens again for twice as long when the probe fails, up to 5 minutes', () => {
    const { clock, c, opened } = circuit();
    attempts(c, 10, () => true);
    const spells: number[] = [];
    for (let i = 0; i < 8; i++) {
      const until = c.snapshot().openUntil!;
      clock.ms = until;
      expect(c.admit()).toEqual({ kind: 'probe' });
      c.record({ failed: true, probe: true });
      spells.push(c.snapshot().openUntil! - clock.now());
    }
    expect(spells).toEqual([10_000, 20_000, 40_000, 80_000, 160_000, 300_000, 300_000, 300_000]);
    // One opening, however many probes failed: the metric counts outages, not probes.
    expect(opened).toHaveLength(1);
  });

  it('a probe that ended on our side (claim busy, store error) frees the way for the next probe', () => {
    const { clock, c } = circuit();
    attempts(c, 10, () => true);
    clock.advance(5_000);
    expect(c.admit().kind).toBe('probe');
    c.abandon(true);
    expect(c.admit().kind).toBe('probe');
  });

  it("honours the runtime's Retry-After for every event, capped at 15 minutes", () => {
    const { clock, c, opened } = circuit();
    attempts(c, 20, () => false);
    c.record({ failed: true, retryAfterSeconds: 30 });
    expect(c.snapshot()).toMatchObject({ state: 'open', reason: 'retry_after', openUntil: clock.now() + 30_000 });
    expect(opened).toHaveLength(1);
    clock.advance(29_999);
    expect(c.admit().kind).toBe('wait');
    clock.advance(1);
    expect(c.admit().kind).toBe('probe');
    c.record({ failed: true, probe: true, retryAfterSeconds: 86_400 });
    expect(c.snapshot().openUntil).toBe(clock.now() + 900_000);
    clock.advance(900_000);
    expect(c.admit().kind).toBe('probe');
  });
});

describe('the circuits, one per agent runtime and agent', () => {
  it('a Retry-After from one origin does not pause another origin, nor another agent of the same one', () => {
    const clock = new TestClock();
    const opened: string[] = [];
    const board = new CircuitBoard(clock, defaultCircuitOptions, (_, key) => opened.push(key));
    const failing = circuitKey('https://runtime-a.example/events', 'agent-1');
    board.for(failing).record({ failed: true, retryAfterSeconds: 600 });
    expect(board.for(failing).admit()).toEqual({ kind: 'wait', untilMs: clock.now() + 600_000 });
    expect(board.for(circuitKey('https://runtime-b.example/events', 'agent-1')).admit()).toEqual({ kind: 'go' });
    expect(board.for(circuitKey('https://runtime-a.example/events', 'agent-2')).admit()).toEqual({ kind: 'go' });
    expect(opened).toEqual([failing]);
    // The console's one line: the most open circuit, and every opening.
    expect(board.snapshot()).toMatchObject({ state: 'open', reason: 'retry_after', opened: 1 });
  });

  it('keys a circuit by the origin and the agent: paths of one runtime share it', () => {
    expect(circuitKey('https://runtime.example/a?x=1', 'agent')).toBe(circuitKey('https://runtime.example/b', 'agent'));
    expect(circuitKey('https://runtime.example/a', 'agent')).not.toBe(circuitKey('https://runtime.example:8443/a', 'agent'));
  });
});
