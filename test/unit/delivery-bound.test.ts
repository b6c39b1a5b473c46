import { describe, expect, it } from 'vitest';
import { DeliveryBound } from '../../local/sandbox/delivery-bound';

describe("the sandbox's bound on a simulated service's webhook deliveries", () => {
  it('sends at most the limit in any window, holds back the rest, and sends again once the window has moved on', () => {
    let now = 0;
    const told: number[] = [];
    const bound = new DeliveryBound(
      3,
      60_000,
      () => now,
      (b) => told.push(b.held),
    );
    expect([bound.take(), bound.take(), bound.take()]).toEqual([true, true, true]);
    // An agent answering every event with an action: the fourth and fifth in the minute are held back.
    now = 59_999;
    expect([bound.take(), bound.take()]).toEqual([false, false]);
    expect(bound.held).toBe(2);
    // Said once for the stretch held back, not once per delivery.
    expect(told).toEqual([1]);
    now = 60_001;
    expect(bound.take()).toBe(true);
    expect([bound.take(), bound.take(), bound.take()]).toEqual([true, true, false]);
    expect(told).toEqual([1, 3]);
  });
});
