import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { openLocalQueues } from '../../shared/adapters/local/local-queues';
import { CircuitBoard, circuitKey } from '../../shared/dispatch/circuit-board';
import { dispatchBatch } from '../../shared/dispatch/dispatch-batch';
import { enqueueEvents } from '../../shared/dispatch/fan-out';
import { singleLane } from '../../shared/dispatch/lane';
import { awsLanes } from '../../shared/dispatch/lanes';
import {
  consultSharedPace,
  probeAskAgainMs,
  readAgainMs,
  type SharedPace,
  tellSharedPace,
  verdictMs,
} from '../../shared/dispatch/shared-pace';
import { providerWork } from '../../shared/wiring/provider-work';
import { useHoldingRuntime, agentEvent, eventSourcePass } from '../helpers/holding-runtime';
import { storeOver } from '../helpers/store-over';
import type { TestContext } from '../helpers/test-context';

const runtime = await useHoldingRuntime();

const of = agentEvent;

/** The two lanes of the Lambda consumer over local queues of the test's own. */
function lanesFor(t: TestContext) {
  const slowQueues = openLocalQueues({ dir: mkdtempSync(join(tmpdir(), 'shared-pace-')), name: 'slow', clock: t.clock });
  const lanes = awsLanes(t.queues.queue, slowQueues.queue);
  return { main: t.queues.queue, slow: slowQueues.queue, lanes, close: () => slowQueues.close() };
}

/** A wait for an untried agent's first answer that ends when the test says. */
function handWait() {
  let end: () => void = () => {};
  return { wait: () => new Promise<void>((r) => (end = r)), end: () => end() };
}

const never = () => new Promise<void>(() => {});

/** Everything a consultation found, once the table has answered and the others are told. */
async function consulted(...args: Parameters<typeof consultSharedPace>): Promise<Map<string, SharedPace>> {
  const c = consultSharedPace(...args);
  const [asked] = await Promise.all([c.asked, c.told]);
  return new Map([...c.known, ...asked]);
}

describe('containers share what they find of an agent runtime’s pace', () => {
  it('of an agent measured nowhere, one container probes it and the others send its events to the slow lane unposted meanwhile', async () => {
    const t = await runtime.setup();
    const { main, slow, lanes, close } = lanesFor(t);
    const [first, second] = [new CircuitBoard(t.clock), new CircuitBoard(t.clock)];
    runtime.held.add('evt_slow_0');
    await enqueueEvents(
      t.ctx,
      [0, 1, 2].map((n) => of('slow', n)),
    );
    const hand = handWait();
    const probing = eventSourcePass(t, main, { lane: lanes.main, circuits: first, untriedWait: hand.wait });
    await runtime.until(() => runtime.holding === 1);

    // A second container meets the agent while the first one's probe is out: no POST, all to the slow lane.
    await enqueueEvents(
      t.ctx,
      [3, 4].map((n) => of('slow', n)),
    );
    expect(await eventSourcePass(t, main, { lane: lanes.main, circuits: second })).toEqual({ received: 2, failed: [] });
    expect(runtime.received).toEqual(['evt_slow_0']);
    expect(slow.size()).toBe(2);

    // The probe's answer does not come within the wait: its two held events follow to the slow lane.
    hand.end();
    await vi.waitFor(() => expect(slow.size()).toBe(4));
    runtime.release();
    expect(await probing).toEqual({ received: 3, failed: [] });
    expect(runtime.received).toEqual(['evt_slow_0']);
    close();
  });

  it('a container new to an agent found slow elsewhere sends its events to the slow lane without a POST or a probe of its own', async () => {
    const t = await runtime.setup();
    const { main, slow, lanes, close } = lanesFor(t);
    const prober = new CircuitBoard(t.clock);
    runtime.held.add('evt_slow_0');
    await enqueueEvents(t.ctx, [of('slow', 0)]);
    const hand = handWait();
    const probing = eventSourcePass(t, main, { lane: lanes.main, circuits: prober, untriedWait: hand.wait });
    await runtime.until(() => runtime.holding === 1);
    // Its answer takes 3 s: the others are told once it comes, timed on the POST alone.
    hand.end();
    t.clock.advance(3_000);
    runtime.release();
    await probing;
    expect(t.logLines.some((l) => l.includes('agent runtime found slow'))).toBe(true);

    // Later, a fresh container: everything of that agent goes to the slow lane at once; another agent's is posted here.
    t.clock.advance(5_000);
    await enqueueEvents(t.ctx, [of('slow', 1), of('slow', 2), of('quick', 1)]);
    expect(await eventSourcePass(t, main, { lane: lanes.main, circuits: new CircuitBoard(t.clock), untriedWait: never })).toEqual({
      received: 3,
      failed: [],
    });
    expect(runtime.received).toEqual(['evt_slow_0', 'evt_quick_1']);
    expect(slow.size()).toBe(2);
    expect(t.metrics.counts.get('dispatch_slow_agent')).toBe(2);
    close();
  });

  it('times the probe on its POST alone: a wait that ended first sends the held events aside here, but tells nobody the agent is slow', async () => {
    const t = await runtime.setup();
    const { main, slow, lanes, close } = lanesFor(t);
    runtime.held.add('evt_busy_0');
    await enqueueEvents(
      t.ctx,
      [0, 1].map((n) => of('busy', n)),
    );
    const hand = handWait();
    const probing = eventSourcePass(t, main, { lane: lanes.main, circuits: new CircuitBoard(t.clock), untriedWait: hand.wait });
    await runtime.until(() => runtime.holding === 1);
    hand.end();
    await vi.waitFor(() => expect(slow.size()).toBe(1));
    // The POST itself is answered at once (no time passes on the clock it is timed by).
    runtime.release();
    expect(await probing).toEqual({ received: 2, failed: [] });
    const key = circuitKey(runtime.url, 'agent-busy');
    expect(await consulted(t.ctx, new CircuitBoard(t.clock), [key])).toEqual(new Map([[key, 'quick']]));
    close();
  });

  it('a quick first answer tells the other containers to post the agent’s events here', async () => {
    const t = await runtime.setup();
    const { main, slow, lanes, close } = lanesFor(t);
    await enqueueEvents(t.ctx, [of('quick', 0)]);
    expect(await eventSourcePass(t, main, { lane: lanes.main, circuits: new CircuitBoard(t.clock), untriedWait: never })).toEqual({
      received: 1,
      failed: [],
    });
    await vi.waitFor(() => expect(t.logLines.some((l) => l.includes('agent runtime found quick'))).toBe(true));

    await enqueueEvents(
      t.ctx,
      [1, 2, 3].map((n) => of('quick', n)),
    );
    expect(await eventSourcePass(t, main, { lane: lanes.main, circuits: new CircuitBoard(t.clock), untriedWait: never })).toEqual({
      received: 3,
      failed: [],
    });
    expect(runtime.answered.sort()).toEqual(['evt_quick_0', 'evt_quick_1', 'evt_quick_2', 'evt_quick_3']);
    expect(slow.size()).toBe(0);
    close();
  });

  it('measures a verdict again before it lapses, in one container, while the others still go by it', async () => {
    const t = await runtime.setup();
    const key = circuitKey(runtime.url, 'agent-slow');
    await tellSharedPace(t.ctx, new CircuitBoard(t.clock), key, true);
    const [a, b, c] = [new CircuitBoard(t.clock), new CircuitBoard(t.clock), new CircuitBoard(t.clock)];
    expect(await consulted(t.ctx, a, [key])).toEqual(new Map([[key, 'slow']]));

    // Past half its life: one container takes the probe; the others keep going by the verdict, not to the slow lane for want of one.
    t.clock.advance(verdictMs.slow / 2 + 1);
    expect(await consulted(t.ctx, b, [key])).toEqual(new Map([[key, 'probe']]));
    expect(await consulted(t.ctx, c, [key])).toEqual(new Map([[key, 'slow']]));
    expect(await consulted(t.ctx, a, [key])).toEqual(new Map([[key, 'slow']]));

    // The probe found it quick: the others go by that once they ask again (not once a batch while the probe is out).
    await tellSharedPace(t.ctx, b, key, false);
    expect(await consulted(t.ctx, c, [key])).toEqual(new Map([[key, 'slow']]));
    t.clock.advance(probeAskAgainMs);
    expect(await consulted(t.ctx, c, [key])).toEqual(new Map([[key, 'quick']]));

    // A verdict nobody renewed lapses: the next container to meet the agent probes it.
    t.clock.advance(verdictMs.quick + 1);
    expect(await consulted(t.ctx, new CircuitBoard(t.clock), [key])).toEqual(new Map([[key, 'probe']]));
  });

  it('keeps a quick verdict ten minutes, and a container going by it hears within 15 s that another found the agent slow', async () => {
    const t = await runtime.setup();
    const key = circuitKey(runtime.url, 'agent-turning');
    await tellSharedPace(t.ctx, new CircuitBoard(t.clock), key, false);
    const follower = new CircuitBoard(t.clock);
    expect(await consulted(t.ctx, follower, [key])).toEqual(new Map([[key, 'quick']]));
    t.clock.advance(4 * 60_000);
    expect(await consulted(t.ctx, follower, [key])).toEqual(new Map([[key, 'quick']]));

    // A container that posts to it finds it slow by its own answers and tells the others.
    const measuring = new CircuitBoard(t.clock);
    for (let i = 0; i < 5; i++) measuring.pace(key).note(3_000);
    await consulted(t.ctx, measuring, [key]);
    // The follower goes by what it read until it reads again.
    expect(await consulted(t.ctx, follower, [key])).toEqual(new Map([[key, 'quick']]));
    t.clock.advance(readAgainMs);
    expect(await consulted(t.ctx, follower, [key])).toEqual(new Map([[key, 'slow']]));
  });

  it('asks the table once per two seconds, not once a batch, while another container probes the agent', async () => {
    const t = await runtime.setup();
    const key = circuitKey(runtime.url, 'agent-new');
    const calls: string[] = [];
    const store = t.ctx.store;
    const get: typeof store.get = (key, opts) => {
      calls.push(`get ${key.sk}`);
      return store.get(key, opts);
    };
    const put: typeof store.put = (item, opts) => {
      calls.push(`put ${item.sk}`);
      return store.put(item, opts);
    };
    const counted = { ...t.ctx, store: storeOver(store, { get, put }) };
    expect(await consulted(t.ctx, new CircuitBoard(t.clock), [key])).toEqual(new Map([[key, 'probe']]));
    const other = new CircuitBoard(t.clock);
    for (let i = 0; i < 5; i++) expect(await consulted(counted, other, [key])).toEqual(new Map([[key, 'elsewhere']]));
    expect(calls).toEqual(['get PACE', 'put PROBE']);
    t.clock.advance(probeAskAgainMs);
    expect(await consulted(counted, other, [key])).toEqual(new Map([[key, 'elsewhere']]));
    expect(calls).toHaveLength(4);
  });

  it('judges an agent it has measured enough itself by its own answers, and tells the others once when they were slow', async () => {
    const t = await runtime.setup();
    const key = circuitKey(runtime.url, 'agent-slow');
    const board = new CircuitBoard(t.clock);
    for (let i = 0; i < 5; i++) board.pace(key).note(3_000);
    expect(await consulted(t.ctx, board, [key])).toEqual(new Map());
    expect(await consulted(t.ctx, board, [key])).toEqual(new Map());
    // Nor again when the verdict is due to be read again: only past its half-life.
    t.clock.advance(readAgainMs);
    for (let i = 0; i < 5; i++) board.pace(key).note(3_000);
    expect(await consulted(t.ctx, board, [key])).toEqual(new Map());
    expect(t.logLines.filter((l) => l.includes('agent runtime found slow'))).toHaveLength(1);
    expect(await consulted(t.ctx, new CircuitBoard(t.clock), [key])).toEqual(new Map([[key, 'slow']]));
  });

  it('judges alone when the table cannot be read: nothing is diverted for want of a verdict', async () => {
    const t = await runtime.setup();
    const { main, slow, lanes, close } = lanesFor(t);
    // The pace rows only: every other read of the stages goes through.
    const store = t.ctx.store;
    const get: typeof store.get = (key, opts) =>
      key.pk.startsWith('PACE#') ? Promise.reject(new Error('throttled')) : store.get(key, opts);
    const ctx = { ...t.ctx, store: storeOver(store, { get }) };
    await enqueueEvents(t.ctx, [of('quick', 0), of('quick', 1)]);
    const messages = await main.receive(10, 180);
    const result = await dispatchBatch(ctx, messages, main, {
      lane: lanes.main,
      circuits: new CircuitBoard(t.clock),
      work: providerWork,
      untriedWait: never,
    });
    expect(result).toEqual({ failedMessageIds: [] });
    expect(runtime.answered.sort()).toEqual(['evt_quick_0', 'evt_quick_1']);
    expect(slow.size()).toBe(0);
    expect(t.logLines.some((l) => l.includes("could not read the agent's shared pace"))).toBe(true);
    close();
  });

  it('holds only the events of an agent the table is asked about: another agent’s go on while the table answers, and while a slow verdict is told', async () => {
    const t = await runtime.setup();
    const { main, slow, lanes, close } = lanesFor(t);
    // The pace rows' reads and writes wait until the test lets them go; every other call of the stages goes through.
    let letGo: () => void = () => {};
    const gate = new Promise<void>((r) => (letGo = r));
    const store = t.ctx.store;
    const paced = (pk: string) => pk.startsWith('PACE#');
    const get: typeof store.get = (key, opts) => (paced(key.pk) ? gate.then(() => store.get(key, opts)) : store.get(key, opts));
    const put: typeof store.put = (item, opts) => (paced(String(item.pk)) ? gate.then(() => store.put(item, opts)) : store.put(item, opts));
    const ctx = { ...t.ctx, store: storeOver(store, { get, put }) };
    const board = new CircuitBoard(t.clock);
    // Measured here: one agent quick, one slow (which the others are then told); a third nobody has measured.
    for (let i = 0; i < 5; i++) board.pace(circuitKey(runtime.url, 'agent-quick')).note(20);
    for (let i = 0; i < 5; i++) board.pace(circuitKey(runtime.url, 'agent-slow')).note(3_000);
    await enqueueEvents(t.ctx, [of('new', 0), of('slow', 0), of('quick', 0)]);
    const messages = await main.receive(10, 180);
    const batch = dispatchBatch(ctx, messages, main, { lane: lanes.main, circuits: board, work: providerWork, untriedWait: never });

    await runtime.until(() => runtime.answered.includes('evt_quick_0'));
    await vi.waitFor(() => expect(slow.size()).toBe(1));
    expect(runtime.received).not.toContain('evt_new_0');

    letGo();
    expect(await batch).toEqual({ failedMessageIds: [] });
    // Nobody had measured the new agent: this container probed it.
    expect(runtime.received).toContain('evt_new_0');
    expect(t.logLines.filter((l) => l.includes('agent runtime found slow'))).toHaveLength(1);
    close();
  });

  it('keeps the one lane of the local runtime to itself: it takes no probe, which would turn the other containers away', async () => {
    const t = await runtime.setup();
    await enqueueEvents(t.ctx, [of('quick', 0)]);
    expect(
      await eventSourcePass(t, t.queues.queue, { lane: singleLane(t.ctx, t.queues.queue), circuits: new CircuitBoard(t.clock) }),
    ).toEqual({
      received: 1,
      failed: [],
    });
    const key = circuitKey(runtime.url, 'agent-quick');
    expect(await consulted(t.ctx, new CircuitBoard(t.clock), [key])).toEqual(new Map([[key, 'probe']]));
  });
});

describe('an untried agent’s held events', () => {
  it('wait for their own agent’s first answer only, not for another agent’s slow one', async () => {
    const t = await runtime.setup();
    const { main, lanes, close } = lanesFor(t);
    runtime.held.add('evt_slow_0');
    await enqueueEvents(t.ctx, [of('slow', 0), of('slow', 1), of('quick', 0), of('quick', 1)]);
    const batch = eventSourcePass(t, main, { lane: lanes.main, circuits: new CircuitBoard(t.clock), untriedWait: never });
    // The quick agent's second event is posted while the slow agent's first is still held.
    await runtime.until(() => runtime.answered.includes('evt_quick_1'));
    expect(runtime.holding).toBe(1);
    expect(runtime.received).not.toContain('evt_slow_1');
    runtime.release();
    expect(await batch).toEqual({ received: 4, failed: [] });
    close();
  });
});
