import { describe, expect, it } from 'vitest';
import {
  earliestSlot,
  maxInAnyWindow,
  withGrant,
  type BucketState,
  type WindowPolicy,
} from '../../shared/providers/contentsnare/sliding-window';

const policy: WindowPolicy = { limit: 20, windowMs: 10_000, marginMs: 50 };

describe('sliding-window slots', () => {
  it('grants at once while fewer than the limit were granted', () => {
    let state: BucketState = { grants: [] };
    for (let i = 0; i < 20; i++) {
      expect(earliestSlot(state, 1000 + i, policy)).toBe(1000 + i);
      state = withGrant(state, 1000 + i, policy);
    }
    // The 21st waits until the first leaves the window, plus the margin.
    expect(earliestSlot(state, 1100, policy)).toBe(1000 + 10_000 + 50);
  });

  it('never starts before a recorded block', () => {
    expect(earliestSlot({ grants: [], blockedUntil: 8000 }, 1000, policy)).toBe(8000);
    expect(earliestSlot({ grants: [], blockedUntil: 500 }, 1000, policy)).toBe(1000);
  });

  it('keeps only the grants that can still constrain a slot', () => {
    let state: BucketState = { grants: [] };
    for (let i = 0; i < 30; i++) state = withGrant(state, i, policy);
    expect(state.grants).toHaveLength(20);
    expect(state.grants[0]).toBe(10);
  });

  it('holds the limit in every sliding window whatever the arrival pattern (a continuous token bucket would not)', () => {
    // A deterministic pseudo-random arrival pattern with bursts and pauses.
    let seed = 42;
    const rand = () => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed / 2 ** 31;
    };
    let state: BucketState = { grants: [] };
    const slots: number[] = [];
    let now = 0;
    for (let i = 0; i < 2000; i++) {
      now += rand() < 0.7 ? 0 : Math.floor(rand() * 3000);
      if (rand() < 0.01) state = { ...state, blockedUntil: Math.max(state.blockedUntil ?? 0, now + 7000) };
      const slot = earliestSlot(state, now, policy);
      state = withGrant(state, slot, policy);
      slots.push(slot);
    }
    expect([...slots].sort((a, b) => a - b)).toEqual(slots); // slots never go backwards
    expect(maxInAnyWindow(slots, policy.windowMs + policy.marginMs)).toBe(policy.limit);
    // And the limit is reached: the scheme does not throw capacity away.
    expect(maxInAnyWindow(slots, policy.windowMs + policy.marginMs + 1)).toBeGreaterThan(policy.limit);
  });

  it('counts entries per half-open window', () => {
    expect(maxInAnyWindow([0, 999, 1000, 1999], 1000)).toBe(2);
    expect(maxInAnyWindow([0, 1, 2], 1000)).toBe(3);
    expect(maxInAnyWindow([], 1000)).toBe(0);
  });
});
