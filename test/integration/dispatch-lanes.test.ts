import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { localJobs } from '../../local/jobs';
import { runLoop } from '../../local/background';
import { openLocalQueues } from '../../shared/adapters/local/local-queues';
import { defaultCircuitOptions } from '../../shared/dispatch/circuit';
import { CircuitBoard, circuitKey } from '../../shared/dispatch/circuit-board';
import { singleLane } from '../../shared/dispatch/lane';
import { providerWork } from '../../shared/wiring/provider-work';
import { DispatchPool } from '../../local/dispatch-pool';
import { enqueueEvents } from '../../shared/dispatch/fan-out';
import { awsLanes, mainLanePostTimeoutMs } from '../../shared/dispatch/lanes';
import { useHoldingRuntime, dispatchTestEvent as event, eventSourcePass } from '../helpers/holding-runtime';
import type { TestContext } from '../helpers/test-context';

const runtime = await useHoldingRuntime();
const setup = () => runtime.setup();

const ids = (from: number, to: number) => Array.from({ length: to - from }, (_, i) => `evt_${from + i}`);

describe('the local consumer: a pool of deliveries in flight', () => {
  it('keeps delivering while the agent runtime holds some POSTs: the events received with them and after them are not held up', async () => {
    const t = await setup();
    // One held POST in every ten events: as many as there used to be batches in flight, one in each.
    for (const n of [0, 10, 20, 30, 40]) runtime.held.add(`evt_${n}`);
    await enqueueEvents(
      t.ctx,
      Array.from({ length: 50 }, (_, n) => event(n)),
    );
    const stop = new AbortController();
    const loop = runLoop(localJobs(t.ctx, t.queues)[0]!, stop.signal, t.ctx.logger);

    const fast = ids(0, 50).filter((id) => !runtime.held.has(id));
    await runtime.until(() => fast.every((id) => runtime.answered.includes(id)));
    // Every other event is delivered while the five POSTs are still held (a held POST that
    // passed its 10 s on a slow machine is tried again and held again: at least five).
    expect(runtime.holding).toBeGreaterThanOrEqual(5);
    expect(runtime.answered.some((id) => runtime.held.has(id))).toBe(false);
    // Events queued after the held ones go straight through as well.
    await enqueueEvents(t.ctx, [event(50), event(51)]);
    await runtime.until(() => runtime.answered.includes('evt_50') && runtime.answered.includes('evt_51'));
    expect(runtime.answered.some((id) => runtime.held.has(id))).toBe(false);

    runtime.release();
    await runtime.until(() => new Set(runtime.answered).size === 52);
    stop.abort();
    await loop;
    expect([...new Set(runtime.answered)].sort()).toEqual(ids(0, 52).sort());
    // Only a held event may have been sent twice (its first answer never arrived in time).
    expect(runtime.received.filter((id) => !['evt_0', 'evt_10', 'evt_20', 'evt_30', 'evt_40'].includes(id))).toHaveLength(47);
    expect(t.queues.queue.size()).toBe(0);
  });
});

describe('the local consumer when its process is starved', () => {
  it('does not start a second delivery of a message that became visible again while its first still runs, and deletes it by the newer receipt', async () => {
    const t = await setup();
    runtime.held.add('evt_1');
    await enqueueEvents(t.ctx, [event(1)]);
    const pool = new DispatchPool(t.ctx, t.queues.queue, {
      size: 10,
      narrowSize: 10,
      visibilitySeconds: 20,
      lane: singleLane(t.ctx, t.queues.queue),
      circuits: new CircuitBoard(t.clock),
      work: providerWork,
    });
    expect(await pool.fill()).toBe(1);
    await runtime.until(() => runtime.received.length === 1);
    // The visibility timeout passes while the POST is still out (the process was starved).
    t.clock.advance(25_000);
    expect(await pool.fill()).toBe(1);
    expect(pool.size).toBe(1);
    runtime.release();
    await pool.drain();
    expect(runtime.received).toEqual(['evt_1']);
    expect(runtime.answered).toEqual(['evt_1']);
    expect(t.queues.queue.size()).toBe(0);
  });
});

describe('the Lambda consumer: a main lane that does not wait out a slow POST, and a slow lane', () => {
  async function lanesFor(t: TestContext) {
    const slowQueues = openLocalQueues({ dir: mkdtempSync(join(tmpdir(), 'slow-lane-')), name: 'slow', clock: t.clock });
    const main = t.queues.queue;
    const slow = slowQueues.queue;
    const lanes = awsLanes(main, slow);
    // The deadline of each POST, by event: the test ends the held one's by hand.
    const deadlines = new Map<string, { ms: number; controller: AbortController }>();
    const limits: number[] = [];
    for (const lane of [lanes.main, lanes.slow]) {
      lane.deadline = (ms, eventId) => {
        const controller = new AbortController();
        deadlines.set(eventId, { ms, controller });
        limits.push(ms);
        return controller.signal;
      };
    }
    return { main, slow, lanes, deadlines, limits, close: () => slowQueues.close() };
  }

  it('answers the batch once the slow POST passes the main lane limit; the slow event is delivered on the slow lane, once', async () => {
    const t = await setup();
    const { main, slow, lanes, deadlines, limits, close } = await lanesFor(t);
    runtime.held.add('evt_3');
    await enqueueEvents(
      t.ctx,
      ids(0, 10).map((_, n) => event(n)),
    );

    const batch = eventSourcePass(t, main, { lane: lanes.main });
    await runtime.until(() => runtime.answered.length === 9 && runtime.received.includes('evt_3'));
    // The main lane's limit (the full 10 s) passes for the held POST, and for it only.
    expect(limits.every((ms) => ms === mainLanePostTimeoutMs)).toBe(true);
    deadlines.get('evt_3')!.controller.abort();
    expect(await batch).toEqual({ received: 10, failed: [] });
    // The batch is answered while the runtime still holds that POST.
    expect(runtime.holding).toBe(1);
    expect(main.size()).toBe(0);
    expect(slow.size()).toBe(1);
    expect(t.metrics.counts.get('dispatch_slow_lane')).toBe(1);

    // The slow lane tries it with the full 10 s; the runtime answers this time.
    runtime.held.clear();
    expect(await eventSourcePass(t, slow, { lane: lanes.slow })).toEqual({ received: 1, failed: [] });
    expect(deadlines.get('evt_3')!.ms).toBe(10_000);
    expect(runtime.answered.filter((id) => id === 'evt_3')).toHaveLength(1);
    expect(slow.size()).toBe(0);
    // Two POSTs of evt_3: the first one's answer never arrived. Every other event: one.
    expect(runtime.received.filter((id) => id === 'evt_3')).toHaveLength(2);
    expect(runtime.received).toHaveLength(11);
    close();
  });

  it("sends the events of an agent whose recent answers were slow straight to the slow lane, unposted, while other agents' go on here", async () => {
    const t = await setup();
    const { main, slow, lanes, close } = await lanesFor(t);
    const circuits = new CircuitBoard(t.clock);
    const of = (agent: string, n: number) => ({
      ...event(n),
      id: `evt_${agent}_${n}`,
      agentId: `agent-${agent}`,
      connectionId: `conn_${agent}`,
    });
    // The slow agent's first five take three seconds each to be answered: the first alone (nothing is known of the agent yet), then the others.
    const never = () => new Promise<void>(() => {});
    for (let n = 0; n < 5; n++) runtime.held.add(`evt_slow_${n}`);
    await enqueueEvents(
      t.ctx,
      [0, 1, 2, 3, 4].map((n) => of('slow', n)),
    );
    const first = eventSourcePass(t, main, { lane: lanes.main, circuits, untriedWait: never });
    await runtime.until(() => runtime.holding === 1);
    t.clock.advance(3_000);
    runtime.release();
    for (let n = 1; n < 5; n++) runtime.held.add(`evt_slow_${n}`);
    await runtime.until(() => runtime.holding === 4);
    t.clock.advance(3_000);
    runtime.release();
    expect(await first).toEqual({ received: 5, failed: [] });
    expect(circuits.pace(circuitKey(runtime.url, 'agent-slow')).isSlow()).toBe(true);

    // The next batch: the slow agent's events go to the slow lane without a POST; the quick agent's are posted here.
    await enqueueEvents(t.ctx, [...[5, 6, 7].map((n) => of('slow', n)), ...[0, 1].map((n) => of('quick', n))]);
    expect(await eventSourcePass(t, main, { lane: lanes.main, circuits })).toEqual({ received: 5, failed: [] });
    expect(runtime.received.filter((id) => id.startsWith('evt_slow_'))).toHaveLength(5);
    expect(runtime.answered).toEqual(expect.arrayContaining(['evt_quick_0', 'evt_quick_1']));
    expect(main.size()).toBe(0);
    expect(slow.size()).toBe(3);
    expect(t.metrics.counts.get('dispatch_slow_agent')).toBe(3);
    // There they are posted once, with the full limit.
    expect(await eventSourcePass(t, slow, { lane: lanes.slow, circuits })).toEqual({ received: 3, failed: [] });
    expect(runtime.received.filter((id) => ['evt_slow_5', 'evt_slow_6', 'evt_slow_7'].includes(id)).sort()).toEqual([
      'evt_slow_5',
      'evt_slow_6',
      'evt_slow_7',
    ]);
    expect(new Set(runtime.received).size).toBe(runtime.received.length);

    // A minute later the agent is measured on the main lane again.
    t.clock.advance(60_001);
    await enqueueEvents(t.ctx, [of('slow', 8)]);
    expect(await eventSourcePass(t, main, { lane: lanes.main, circuits })).toEqual({ received: 1, failed: [] });
    expect(runtime.answered).toContain('evt_slow_8');
    expect(slow.size()).toBe(0);
    close();
  });

  it('posts one event of an agent it knows nothing of yet and holds the others: a runtime answering 503 with Retry-After costs one POST of the batch', async () => {
    const t = await setup();
    const { main, lanes, close } = await lanesFor(t);
    const circuits = new CircuitBoard(t.clock);
    runtime.answer = () => ({ status: 503, headers: { 'retry-after': '30' } });
    await enqueueEvents(
      t.ctx,
      ids(0, 10).map((_, n) => event(n)),
    );
    const never = () => new Promise<void>(() => {});
    // The first answer opened the circuit: it goes back as a delayed copy, and the nine held behind it are deferred, unposted.
    expect(await eventSourcePass(t, main, { lane: lanes.main, circuits, untriedWait: never })).toEqual({ received: 10, failed: [] });
    expect(runtime.received).toEqual(['evt_0']);
    expect(t.metrics.counts.get('dispatch_deferred')).toBe(9);
    close();
  });

  it('sends the others of an untried agent to the slow lane when its first answer does not come within the wait', async () => {
    const t = await setup();
    const { main, slow, lanes, deadlines, close } = await lanesFor(t);
    const circuits = new CircuitBoard(t.clock);
    runtime.held.add('evt_0');
    await enqueueEvents(
      t.ctx,
      ids(0, 5).map((_, n) => event(n)),
    );
    let waited: () => void = () => {};
    const wait = () => new Promise<void>((r) => (waited = r));
    const batch = eventSourcePass(t, main, { lane: lanes.main, circuits, untriedWait: wait });
    await runtime.until(() => runtime.holding === 1);
    // The wait ends with the first POST still unanswered.
    waited();
    await vi.waitFor(() => expect(slow.size()).toBe(4));
    expect(runtime.received).toEqual(['evt_0']);
    deadlines.get('evt_0')!.controller.abort();
    expect(await batch).toEqual({ received: 5, failed: [] });
    expect(t.metrics.counts.get('dispatch_slow_agent')).toBe(4);
    close();
  });

  it('keeps a slow agent on the one lane of the local runtime, which has no slow lane: nothing is diverted', async () => {
    const t = await setup();
    const circuits = new CircuitBoard(t.clock);
    const key = circuitKey(runtime.url, 'agent-1');
    for (let i = 0; i < 10; i++) circuits.pace(key).note(5_000);
    await enqueueEvents(t.ctx, [event(1), event(2)]);
    expect(await eventSourcePass(t, t.queues.queue, { lane: singleLane(t.ctx, t.queues.queue), circuits })).toEqual({
      received: 2,
      failed: [],
    });
    expect(runtime.answered.sort()).toEqual(['evt_1', 'evt_2']);
    expect(t.metrics.counts.get('dispatch_slow_agent')).toBeUndefined();
  });

  it('never sends an acknowledged event again, on either lane: the dispatch claim gates both', async () => {
    const t = await setup();
    const { main, slow, lanes, close } = await lanesFor(t);
    await enqueueEvents(t.ctx, [event(1)]);
    expect(await eventSourcePass(t, main, { lane: lanes.main })).toEqual({ received: 1, failed: [] });
    // Copies of the delivered event on both queues (an intake retry, a redrive, a move that was repeated).
    await enqueueEvents(t.ctx, [event(1)]);
    await enqueueEvents({ ...t.ctx, queue: slow }, [event(1)]);
    expect(await eventSourcePass(t, main, { lane: lanes.main })).toEqual({ received: 1, failed: [] });
    expect(await eventSourcePass(t, slow, { lane: lanes.slow })).toEqual({ received: 1, failed: [] });
    expect(runtime.received).toEqual(['evt_1']);
    expect(t.metrics.counts.get('dispatch_duplicate')).toBe(2);
    close();
  });

  it('backs off as a whole when most POSTs fail: the open circuit defers events without sending them or using up their receives, then probes and closes', async () => {
    const t = await setup();
    const { main, lanes, close } = await lanesFor(t);
    let opened = 0;
    const circuits = new CircuitBoard(t.clock, defaultCircuitOptions, () => opened++);
    runtime.answer = () => ({ status: 503 });
    await enqueueEvents(
      t.ctx,
      ids(0, 30).map((_, n) => event(n)),
    );
    // The first ten all fail: the circuit opens.
    expect((await eventSourcePass(t, main, { lane: lanes.main, circuits })).failed).toHaveLength(10);
    expect(opened).toBe(1);
    expect(runtime.received).toHaveLength(10);
    // The next twenty are not sent: each goes back on its queue, delayed past the open spell, as a new message.
    expect(await eventSourcePass(t, main, { lane: lanes.main, circuits })).toEqual({ received: 10, failed: [] });
    expect(await eventSourcePass(t, main, { lane: lanes.main, circuits })).toEqual({ received: 10, failed: [] });
    expect(runtime.received).toHaveLength(10);
    expect(t.metrics.counts.get('dispatch_deferred')).toBe(20);
    expect(await main.receive(10, 180)).toHaveLength(0);

    // The runtime recovers; after the spell, one probe goes and is answered; the circuit closes.
    runtime.answer = () => ({ status: 200, body: { ok: true } });
    t.clock.advance(10_000);
    const probe = await eventSourcePass(t, main, { lane: lanes.main, circuits });
    expect(runtime.received).toHaveLength(11);
    expect(circuits.snapshot().state).toBe('closed');
    expect(probe.received - probe.failed.length).toBe(10);
    // Everything is delivered in the end, once each, with nothing dead-lettered.
    for (let i = 0; i < 10 && main.size() > 0; i++) {
      t.clock.advance(15_000);
      await eventSourcePass(t, main, { lane: lanes.main, circuits });
    }
    expect(new Set(runtime.answered)).toEqual(new Set(ids(0, 30)));
    expect(runtime.answered).toHaveLength(30);
    expect(t.queues.dlq.size()).toBe(0);
    expect(opened).toBe(1);
    close();
  });
});
