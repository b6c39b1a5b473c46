import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { pollOnce } from '../../shared/polling/poll-once';
import { stopTestDynamo } from '../helpers/dynamo';
import { FakePolledLists } from '../helpers/fake-polled-lists';
import { seedPolledWorld } from '../helpers/polled-world';
import { testContext, type TestContext } from '../helpers/test-context';

let lists: FakePolledLists;
beforeAll(async () => {
  lists = await FakePolledLists.start();
});
afterAll(async () => {
  await lists.close();
  await stopTestDynamo();
});
const open: TestContext[] = [];
afterEach(() => {
  for (const t of open.splice(0)) t.close();
});

describe('a round costs one request per distinct source, in bounded fair concurrency', () => {
  it('40 subscriptions over 10 connections and 15 sources: 15 requests a round, new items to every subscription of their source, at most 4 in flight and 1 per token', async () => {
    const t = await testContext({ GITHUB_API_URL: lists.url });
    open.push(t);
    const world = await seedPolledWorld(t.ctx, t.connect, lists, { subscriptions: 40, connections: 10, sources: 15 });
    const options = { concurrency: 4, perConnection: 1 };
    // The first round after the change starts each source's shared cursor from its subscriptions' own.
    lists.resetCounts();
    expect(await pollOnce(t.ctx, options)).toMatchObject({ subscriptions: 40, sources: 15, announced: 0, failed: 0 });
    expect(lists.counts.requests).toBe(15);

    lists.resetCounts();
    expect(await pollOnce(t.ctx, options)).toMatchObject({ sources: 15, notModified: 15, announced: 0 });
    expect(lists.counts).toMatchObject({ requests: 15, notModified: 15 });

    world.addItems([0, 3, 14], '2026-02-01T00:00:00Z');
    lists.resetCounts();
    const expected = [0, 3, 14].reduce((n, s) => n + world.sources[s]!.subs.length, 0);
    expect(await pollOnce(t.ctx, options)).toMatchObject({ notModified: 12, announced: expected, failed: 0 });
    expect(lists.counts.requests).toBe(15);
    expect(lists.counts.maxInFlight).toBeLessThanOrEqual(4);
    expect(lists.counts.maxInFlightPerToken).toBe(1);
    const agents = (await t.receiveAll(1000)).map((m) => (JSON.parse(m.body) as { agentId: string }).agentId).sort();
    expect(agents).toEqual([0, 3, 14].flatMap((s) => world.sources[s]!.subs.map((x) => x.agentId)).sort());
  });
});
