import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import { maxInAnyWindow } from '../../shared/contentsnare/sliding-window';
import { createContentsnareTools } from '../../shared/contentsnare/tools';
import { invokeTool, type ToolResult } from '../../shared/tools/invoke';
import type { ProviderTools } from '../../shared/tools/tool-step';
import { stopTestDynamo } from '../helpers/dynamo';
import { startFakeContentSnare, type FakeContentSnare } from '../helpers/fake-contentsnare';
import { toolTestContext, type ToolTestContext } from '../helpers/tool-context';

/**
 * The collection service's limits held across concurrent workers, in real time but with
 * the window scaled down from 10 s to 1 s (same limits: 20 writes, 50 reads) so the suite
 * stays fast; the fake enforces the same window and answers 429 beyond it. The full-size
 * figure is bench/contentsnare-saturation.ts's job. Each "worker" has its own client
 * factory and limiter; they share only the table, as Lambda containers do.
 */
const windowMs = 1000;
// The margin covers the delay between a granted slot and the fake's arrival stamp. Here the
// clients, the fake and the embedded DynamoDB share one event loop (and two cores with
// other test files): the first burst's arrivals were seen spread over ~500 ms, far beyond
// real-network jitter, hence a margin well above production's 500 ms-per-10 s ratio.
const limits = { windowMs, writes: 20, reads: 50, marginMs: 600 };

let fake: FakeContentSnare;
let t: ToolTestContext;

beforeEach(async () => {
  fake = await startFakeContentSnare(limits);
  t = await toolTestContext({ CONTENTSNARE_API_URL: fake.url, RATE_LIMIT_MAX_WAIT_SECONDS: '30' });
});
afterEach(async () => {
  await fake.close();
  expect(fake.problems).toEqual([]);
});
afterAll(async () => {
  await stopTestDynamo();
});

const workers = (n: number): ProviderTools[] => Array.from({ length: n }, () => createContentsnareTools({ limits }) as unknown as ProviderTools);

async function account(label: string) {
  return t.connect({ provider: 'contentsnare', authMethod: 'oauth', accountLogin: `${label}@example.com` }, `cs-token-${label}`);
}

describe('collection-service rate limits across workers', () => {
  it('100 writes released at once over 4 workers: all succeed, no 429, at most 20 in every sliding window; a second account is not slowed', async () => {
    const a = await account('a');
    const b = await account('b');
    const pool = workers(4);
    let aDone = 0;
    let aDoneWhenBFinished = -1;
    const write = (connectionId: string, i: number) =>
      invokeTool(t.ctx, { toolId: 'contentsnare.create_client', connectionId, input: { name: `Client ${i}`, email: `c${i}-${connectionId}@example.com` } }, [pool[i % 4] as ProviderTools]);

    const aCalls = Array.from({ length: 100 }, (_, i) => write(a.id, i).then((r) => (aDone++, r)));
    const bCalls = Promise.all(Array.from({ length: 10 }, (_, i) => write(b.id, i))).then((r) => ((aDoneWhenBFinished = aDone), r));
    const [aResults, bResults] = await Promise.all([Promise.all(aCalls), bCalls]);

    // One Content Snare account's e-mails are unique (a known one is `already_invited`): each connection writes its own.
    const failed = (rs: ToolResult[]) => rs.filter((r) => !r.ok);
    expect(failed(aResults)).toEqual([]);
    expect(failed(bResults)).toEqual([]);
    expect(fake.count(429)).toBe(0);
    const aTimes = fake.acceptedTimes({ token: 'cs-token-a', kind: 'write' });
    expect(aTimes).toHaveLength(100);
    expect(maxInAnyWindow(aTimes, windowMs)).toBeLessThanOrEqual(20);
    // Account B's 10 writes fit its own window: they finished while A was still far from done
    // (A needs five windows; B waiting behind A would have finished after most of A's).
    expect(aDoneWhenBFinished).toBeGreaterThanOrEqual(0);
    expect(aDoneWhenBFinished).toBeLessThanOrEqual(40);
  });

  it('120 reads released at once over 4 workers: all succeed, no 429, at most 50 in every sliding window', async () => {
    const a = await account('a');
    const pool = workers(4);
    const results = await Promise.all(
      Array.from({ length: 120 }, (_, i) =>
        invokeTool(t.ctx, { toolId: 'contentsnare.api_call', connectionId: a.id, input: { method: 'GET', endpoint: 'requests', query: { limit: 10, offset: i } } }, [
          pool[i % 4] as ProviderTools,
        ]),
      ),
    );
    expect(results.filter((r) => !r.ok)).toEqual([]);
    expect(fake.count(429)).toBe(0);
    const times = fake.acceptedTimes({ kind: 'read' });
    expect(times).toHaveLength(120);
    expect(maxInAnyWindow(times, windowMs)).toBeLessThanOrEqual(50);
  });
});
