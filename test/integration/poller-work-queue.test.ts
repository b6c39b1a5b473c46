import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { openLocalQueues, type LocalQueues } from '../../shared/adapters/local/local-queues';
import { planPollRound } from '../../shared/polling/poll-plan';
import { pollWorkItems } from '../../shared/polling/poll-work';
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
const open: Array<{ close(): void }> = [];
afterEach(() => {
  for (const t of open.splice(0)) t.close();
});

async function world(shape = { subscriptions: 60, connections: 6, sources: 60 }) {
  const t = await testContext({ GITHUB_API_URL: lists.url });
  open.push(t);
  const work = openLocalQueues({ dir: mkdtempSync(join(tmpdir(), 'poll-work-')), name: 'poll-work', clock: t.clock, maxReceives: 3 });
  open.push(work);
  const seeded = await seedPolledWorld(t.ctx, t.connect, lists, shape);
  return { t, work, seeded };
}

/** `n` workers side by side, each taking up to 2 work items at a time until the queue is empty; the items each took. */
async function runWorkers(t: TestContext, work: LocalQueues, n: number): Promise<number[]> {
  const taken = Array.from({ length: n }, () => 0);
  await Promise.all(
    taken.map(async (_, w) => {
      for (;;) {
        const batch = await work.queue.receive(2, 60);
        if (batch.length === 0) return;
        taken[w] = (taken[w] ?? 0) + batch.length;
        const { failedMessageIds } = await pollWorkItems(t.ctx, batch, { concurrency: 4, perConnection: 1 });
        for (const m of batch) if (!failedMessageIds.includes(m.messageId)) await work.queue.delete(m.receiptHandle);
      }
    }),
  );
  return taken;
}

/** Reads of each list in the requests since the last reset, by token and path. */
function readsByList(): Map<string, number> {
  const out = new Map<string, number>();
  for (const r of lists.server.requests) {
    const key = `${String(r.headers.authorization)} ${r.path}`;
    out.set(key, (out.get(key) ?? 0) + 1);
  }
  return out;
}

describe('a polling round is planned as work items that many workers take', () => {
  it('60 sources of 6 connections over 3 workers: each source read exactly once a round, each item one tenant, every worker busy', async () => {
    const { t, work } = await world();
    lists.resetCounts();
    const plan = await planPollRound(t.ctx, work.queue, { unitsPerItem: 4 });
    expect(plan).toMatchObject({ units: 60, planned: 60 });
    // 10 sources per connection, 4 to an item: 3 items per connection.
    expect(plan.items).toBe(18);
    const taken = await runWorkers(t, work, 3);
    expect(taken.reduce((a, b) => a + b, 0)).toBe(18);
    for (const n of taken) expect(n).toBeGreaterThan(0);
    const reads = readsByList();
    expect(reads.size).toBe(60);
    expect([...reads.values()].every((n) => n === 1)).toBe(true);
    expect(lists.counts.maxInFlightPerToken).toBe(1);

    // The next interval: every source once more (unchanged: 304s).
    t.clock.advance(60_000);
    lists.resetCounts();
    await planPollRound(t.ctx, work.queue, { unitsPerItem: 4 });
    await runWorkers(t, work, 3);
    expect(lists.counts).toMatchObject({ requests: 60, notModified: 60 });
  }, 90_000);

  it('a round that cannot plan every unit starts the next where it stopped: no source is left out two rounds running', async () => {
    const { t, work } = await world({ subscriptions: 50, connections: 5, sources: 50 });
    const rounds: Array<Map<string, number>> = [];
    for (let r = 0; r < 2; r++) {
      lists.resetCounts();
      expect(await planPollRound(t.ctx, work.queue, { maxUnitsPerRound: 30 })).toMatchObject({ units: 50, planned: 30 });
      await runWorkers(t, work, 2);
      rounds.push(readsByList());
      t.clock.advance(60_000);
    }
    const [first, second] = rounds as [Map<string, number>, Map<string, number>];
    expect(first.size).toBe(30);
    expect(second.size).toBe(30);
    const both = new Set([...first.keys(), ...second.keys()]);
    // The 20 the first round left out are the first of the second.
    expect(both.size).toBe(50);
  });

  it("when every unit fits, the next round's order starts half-way round: what came last comes early", async () => {
    // One connection: its group's items are received in the order they were sent.
    const { t, work } = await world({ subscriptions: 20, connections: 1, sources: 20 });
    const first = await planPollRound(t.ctx, work.queue, { unitsPerItem: 1 });
    const firstOrder = (await work.queue.receive(100, 60)).map((m) => JSON.parse(m.body).units[0].key as string);
    const second = await planPollRound(t.ctx, work.queue, { unitsPerItem: 1 });
    const secondOrder = (await work.queue.receive(100, 60)).map((m) => JSON.parse(m.body).units[0].key as string);
    expect(second.start).not.toBe(first.start);
    expect(new Set(secondOrder)).toEqual(new Set(firstOrder));
    const last = firstOrder.at(-1) as string;
    expect(secondOrder.indexOf(last)).toBeLessThan(secondOrder.length / 2);
  });

  it('a work item first taken after its interval is dropped (a later round planned it again); a failing one is retried, then dead-lettered', async () => {
    const { t, work, seeded } = await world({ subscriptions: 4, connections: 2, sources: 4 });
    await planPollRound(t.ctx, work.queue);
    t.clock.advance(61_000);
    lists.resetCounts();
    const stale = await work.queue.receive(10, 60);
    const { report } = await pollWorkItems(t.ctx, stale);
    expect(report.stale).toBe(stale.length);
    expect(lists.counts.requests).toBe(0);
    for (const m of stale) await work.queue.delete(m.receiptHandle);

    // A unit that cannot be read (its spec names no subscription): its item is answered as failed, and after 3 receives goes to the dead letters.
    const connectionId = (seeded.connections[0] as { id: string }).id;
    const broken = {
      provider: 'github',
      connectionId,
      key: 'broken',
      subscriptions: 1,
      spec: { kind: 'source', path: '/gists', subs: [] },
    };
    await work.queue.sendBatch([
      { id: 'b', body: JSON.stringify({ v: 1, plannedAt: t.clock.now(), units: [broken] }), group: connectionId },
    ]);
    await planPollRound(t.ctx, work.queue, { unitsPerItem: 1 });
    for (let receive = 0; receive < 3; receive++) {
      const batch = await work.queue.receive(10, 60);
      const { failedMessageIds } = await pollWorkItems(t.ctx, batch);
      expect(failedMessageIds).toHaveLength(1);
      for (const m of batch) if (!failedMessageIds.includes(m.messageId)) await work.queue.delete(m.receiptHandle);
      t.clock.advance(61_000);
    }
    expect(await work.queue.receive(10, 60)).toEqual([]);
    expect(await work.deadLetters.list(10)).toHaveLength(1);
  });
});
