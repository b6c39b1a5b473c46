import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import { maxInAnyWindow } from '../../shared/providers/contentsnare/sliding-window';
import { createContentsnareTools } from '../../shared/providers/contentsnare/tools';
import { invokeTool, type ToolResult } from '../../shared/tools/invoke';
import type { ProviderTools } from '../../shared/tools/tool-step';
import { stopTestDynamo } from '../helpers/dynamo';
import { startFakeContentSnare, type FakeContentSnare } from '../helpers/fake-contentsnare';
import { toolTestContext, type ToolTestContext } from '../helpers/tool-context';
import { VirtualTime } from '../helpers/virtual-time';

/**
 * The collection service's limits (10 s window, 20 writes, 50 reads) held across concurrent
 * workers, in virtual time: the limiters, their sleeps and the fake's arrival log share one
 * test clock that moves only when every worker waits (see virtual-time.ts), so the windows
 * are full size and the verdict does not depend on machine load. The wall-clock figure is
 * bench/contentsnare-saturation.ts's job. Each "worker" has its own client factory and
 * limiter; they share only the table, as Lambda containers do.
 */
const windowMs = 10_000;

let fake: FakeContentSnare;
let t: ToolTestContext;
let time: VirtualTime;

beforeEach(async () => {
  time = new VirtualTime();
  fake = await startFakeContentSnare({ now: () => time.now() });
  // 100 writes need five windows (~42 s): allow the wait.
  t = await toolTestContext({ CONTENTSNARE_API_URL: fake.url, RATE_LIMIT_MAX_WAIT_SECONDS: '60' }, time);
  t.ctx = { ...t.ctx, store: time.trackStore(t.ctx.store), fetch: time.trackFetch(t.ctx.fetch) };
});
afterEach(async () => {
  await fake.close();
  expect(fake.problems).toEqual([]);
});
afterAll(async () => {
  await stopTestDynamo();
});

const workers = (n: number): ProviderTools[] =>
  Array.from({ length: n }, () => createContentsnareTools({ sleep: time.sleep, random: () => 0.5 }));

async function account(label: string) {
  return t.connect({ provider: 'contentsnare', authMethod: 'oauth', accountLogin: `${label}@example.com` }, `cs-token-${label}`);
}

describe('collection-service rate limits across workers (test clock)', () => {
  it('100 writes released at once over 4 workers: all succeed, no 429, at most 20 in every sliding window; a second account is not slowed', async () => {
    const a = await account('a');
    const b = await account('b');
    const pool = workers(4);
    const t0 = time.now();
    const write = (connectionId: string, i: number) =>
      invokeTool(
        t.ctx,
        { toolId: 'contentsnare.create_client', connectionId, input: { name: `Client ${i}`, email: `c${i}-${connectionId}@example.com` } },
        [pool[i % 4] as ProviderTools],
      );

    const [aResults, bResults] = await Promise.all([
      Promise.all(Array.from({ length: 100 }, (_, i) => write(a.id, i))),
      Promise.all(Array.from({ length: 10 }, (_, i) => write(b.id, i))),
    ]);

    // One Content Snare account's e-mails are unique (a known one is `already_invited`): each connection writes its own.
    const failed = (rs: ToolResult[]) => rs.filter((r) => !r.ok);
    expect(failed(aResults)).toEqual([]);
    expect(failed(bResults)).toEqual([]);
    expect(fake.count(429)).toBe(0);
    const aTimes = fake.acceptedTimes({ token: 'cs-token-a', kind: 'write' });
    expect(aTimes).toHaveLength(100);
    expect(maxInAnyWindow(aTimes, windowMs)).toBeLessThanOrEqual(20);
    // The limiter did hold A back: its 100 writes span at least four full windows.
    expect(Math.max(...aTimes) - t0).toBeGreaterThanOrEqual(4 * windowMs);
    // Account B's 10 writes fit its own window: all sent in the first one, not behind A's backlog.
    const bTimes = fake.acceptedTimes({ token: 'cs-token-b', kind: 'write' });
    expect(bTimes).toHaveLength(10);
    expect(Math.max(...bTimes) - t0).toBeLessThan(windowMs);
  });

  it('120 reads released at once over 4 workers: all succeed, no 429, at most 50 in every sliding window', async () => {
    const a = await account('a');
    const pool = workers(4);
    const t0 = time.now();
    const results = await Promise.all(
      Array.from({ length: 120 }, (_, i) =>
        invokeTool(
          t.ctx,
          {
            toolId: 'contentsnare.api_call',
            connectionId: a.id,
            input: { method: 'GET', endpoint: 'requests', query: { limit: 10, offset: i } },
          },
          [pool[i % 4] as ProviderTools],
        ),
      ),
    );
    expect(results.filter((r) => !r.ok)).toEqual([]);
    expect(fake.count(429)).toBe(0);
    const times = fake.acceptedTimes({ kind: 'read' });
    expect(times).toHaveLength(120);
    expect(maxInAnyWindow(times, windowMs)).toBeLessThanOrEqual(50);
    expect(Math.max(...times) - t0).toBeGreaterThanOrEqual(2 * windowMs);
  });
});
