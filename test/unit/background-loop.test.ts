import { describe, expect, it, vi } from 'vitest';
import { runLoop, type BackgroundJob } from '../../local/background';
import { createJsonLogger } from '../../shared/observability/logger';

const logger = createJsonLogger({ service: 'test', write: () => undefined, level: 'ERROR' });

/** A job whose rounds report how many run at once; each round lasts until the next macrotask. */
function countingJob(extra: Partial<BackgroundJob> = {}) {
  const seen = { active: 0, most: 0, rounds: 0 };
  const job: BackgroundJob = {
    name: 'counting',
    idleMs: 5,
    async runOnce() {
      seen.active++;
      seen.most = Math.max(seen.most, seen.active);
      await new Promise((r) => setTimeout(r, 1));
      seen.active--;
      seen.rounds++;
      return true;
    },
    ...extra,
  };
  return { job, seen };
}

describe('background loop', () => {
  it('runs up to `concurrency` rounds at once', async () => {
    const { job, seen } = countingJob({ concurrency: 4 });
    const stop = new AbortController();
    const running = runLoop(job, stop.signal, logger);
    await vi.waitFor(() => expect(seen.most).toBe(4));
    stop.abort();
    await running;
  });

  it('runs one round at a time while the job says to narrow, and widens again after', async () => {
    let narrow = true;
    const { job, seen } = countingJob({ concurrency: 4, narrow: () => narrow });
    const stop = new AbortController();
    const running = runLoop(job, stop.signal, logger);
    await vi.waitFor(() => expect(seen.rounds).toBeGreaterThanOrEqual(20));
    expect(seen.most).toBe(1);
    narrow = false;
    await vi.waitFor(() => expect(seen.most).toBeGreaterThan(1));
    stop.abort();
    await running;
  });
});
