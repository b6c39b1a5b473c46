import { describe, expect, it } from 'vitest';
import { loadOnce } from '../../shared/domain/load-once';

describe('loadOnce', () => {
  it('loads on the first call and hands every later call the same promise', async () => {
    let loads = 0;
    const load = loadOnce(async () => ({ n: ++loads }));
    expect(loads).toBe(0);
    const [a, b] = [load(), load()];
    expect(a).toBe(b);
    expect(await a).toEqual({ n: 1 });
    expect(await load()).toEqual({ n: 1 });
    expect(loads).toBe(1);
  });

  it('forgets a load that failed, so the next call tries again', async () => {
    let loads = 0;
    const load = loadOnce(async () => {
      loads++;
      if (loads === 1) throw new Error('chunk unreadable');
      return 'module';
    });
    await expect(load()).rejects.toThrow('chunk unreadable');
    expect(await load()).toBe('module');
    expect(loads).toBe(2);
  });
});
