import { describe, expect, it } from 'vitest';
import { runFairPool } from '../../shared/polling/fair-pool';

/** Tasks that finish only when the test says, so in-flight counts are exact (no timing). */
function controlled() {
  const waiting: Array<{ task: string; finish: () => void }> = [];
  const started: string[] = [];
  const run = (task: string) =>
    new Promise<void>((resolve) => {
      started.push(task);
      waiting.push({ task, finish: resolve });
    });
  const settle = async () => {
    for (let i = 0; i < 5; i++) await Promise.resolve();
  };
  return { waiting, started, run, settle };
}

describe('fair pool', () => {
  it('caps reads in flight overall and per connection, and lets connections take turns', async () => {
    const c = controlled();
    // One busy connection with 20 sources, three small ones with 1 each.
    const tasks = [
      ...Array.from({ length: 20 }, (_, i) => ({ group: 'busy', task: `busy-${i}` })),
      ...['a', 'b', 'c'].map((g) => ({ group: g, task: `${g}-0` })),
    ];
    const pool = runFairPool(tasks, { concurrency: 4, perGroup: 2 }, c.run, () => undefined);
    await c.settle();
    // Connections take turns: the small ones start in the first wave beside the busy one's first.
    expect([...c.started].sort()).toEqual(['a-0', 'b-0', 'busy-0', 'c-0']);
    let maxInFlight = 0;
    while (c.waiting.length > 0) {
      maxInFlight = Math.max(maxInFlight, c.waiting.length);
      const busy = c.waiting.filter((w) => w.task.startsWith('busy')).length;
      expect(busy).toBeLessThanOrEqual(2);
      c.waiting.shift()!.finish();
      await c.settle();
    }
    await pool.done;
    expect(maxInFlight).toBe(4);
    expect(c.started).toHaveLength(23);
  });

  it("hands a skipped connection's sources not yet started to onSkipped, and runs the others", async () => {
    const c = controlled();
    const skipped: string[] = [];
    const tasks = [
      ...Array.from({ length: 5 }, (_, i) => ({ group: 'low', task: `low-${i}` })),
      ...Array.from({ length: 5 }, (_, i) => ({ group: 'ok', task: `ok-${i}` })),
    ];
    const pool = runFairPool(tasks, { concurrency: 2, perGroup: 1 }, c.run, (t) => skipped.push(t));
    await c.settle();
    pool.skipGroup('low');
    while (c.waiting.length > 0) {
      c.waiting.shift()!.finish();
      await c.settle();
    }
    await pool.done;
    expect(skipped).toEqual(['low-1', 'low-2', 'low-3', 'low-4']);
    expect(c.started.filter((t) => t.startsWith('ok'))).toHaveLength(5);
  });

  it('ends with no tasks, and when a task throws', async () => {
    await runFairPool(
      [],
      { concurrency: 2, perGroup: 1 },
      async () => undefined,
      () => undefined,
    ).done;
    let ran = 0;
    await runFairPool(
      [
        { group: 'g', task: 1 },
        { group: 'g', task: 2 },
      ],
      { concurrency: 2, perGroup: 1 },
      async () => {
        ran++;
        throw new Error('boom');
      },
      () => undefined,
    ).done;
    expect(ran).toBe(2);
  });
});
