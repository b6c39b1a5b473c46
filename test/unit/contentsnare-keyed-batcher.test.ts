import { describe, expect, it } from 'vitest';
import { KeyedBatcher } from '../../shared/providers/contentsnare/keyed-batcher';

describe('KeyedBatcher', () => {
  it('serves the callers that gathered during a flush with one next flush, in order', async () => {
    const flushes: number[][] = [];
    const batcher = new KeyedBatcher<number, string>(async (_key, batch) => {
      flushes.push(batch);
      await new Promise((r) => setTimeout(r, 5));
      return batch.map((n) => `r${n}`);
    });
    const results = await Promise.all([1, 2, 3, 4, 5].map((n) => batcher.submit('acct', n)));
    expect(results).toEqual(['r1', 'r2', 'r3', 'r4', 'r5']);
    expect(flushes).toEqual([[1], [2, 3, 4, 5]]);
    expect(batcher.activeKeys).toBe(0);
  });

  it('keeps keys independent: a stuck flush of one account does not hold another', async () => {
    let release: () => void = () => undefined;
    const batcher = new KeyedBatcher<string, string>(async (key, batch) => {
      if (key === 'slow') await new Promise<void>((r) => (release = r));
      return batch.map((b) => `${key}:${b}`);
    });
    const slow = batcher.submit('slow', 'x');
    await expect(batcher.submit('fast', 'y')).resolves.toBe('fast:y');
    release();
    await expect(slow).resolves.toBe('slow:x');
  });

  it('rejects only the entries answered with an error, and the whole batch when the flush throws', async () => {
    const batcher = new KeyedBatcher<number, number>(async (_k, batch) => {
      if (batch.includes(99)) throw new Error('flush failed');
      return batch.map((n) => (n < 0 ? new Error(`negative ${n}`) : n));
    });
    await expect(batcher.submit('a', -1)).rejects.toThrow('negative -1');
    await expect(batcher.submit('a', 2)).resolves.toBe(2);
    await expect(batcher.submit('a', 99)).rejects.toThrow('flush failed');
    await expect(batcher.submit('a', 3)).resolves.toBe(3);
  });
});
