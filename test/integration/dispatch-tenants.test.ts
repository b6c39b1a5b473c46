import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { CircuitBoard, circuitKey } from '../../shared/dispatch/circuit-board';
import { dispatchBatch } from '../../shared/dispatch/dispatch-batch';
import { singleLane } from '../../shared/dispatch/lane';
import { providerWork } from '../../shared/wiring/provider-work';
import { DispatchPool } from '../../local/dispatch-pool';
import { enqueueEvents } from '../../shared/dispatch/fan-out';
import type { TriggerEvent } from '../../shared/domain/model';
import type { PollableQueue } from '../../shared/ports';
import { stopTestDynamo } from '../helpers/dynamo';
import { startFakeHttp, type FakeResponse, type FakeServer } from '../helpers/fake-http';
import { testContext, type TestContext } from '../helpers/test-context';

/**
 * An agent runtime that holds the POSTs of chosen events (an overloaded service that keeps a
 * request past its caller's limit) and answers the others at once, noting every event it
 * answered. `until` resolves once a condition on what it saw holds: the tests wait on what
 * happened, never on the wall clock.
 */
class HoldingRuntime {
  readonly held = new Set<string>();
  readonly answered: string[] = [];
  readonly received: string[] = [];
  /** Answer of the runtime to everything it does not hold (200 by default), by event id. */
  answer: (eventId: string) => FakeResponse = () => ({ status: 200, body: { ok: true } });
  private releases: Array<() => void> = [];
  private checks: Array<() => void> = [];

  private constructor(readonly server: FakeServer) {}

  static async start(): Promise<HoldingRuntime> {
    let self: HoldingRuntime | undefined;
    const server = await startFakeHttp(async (req) => {
      const rt = self!;
      const id = (req.json as { id: string }).id;
      rt.received.push(id);
      rt.changed();
      if (rt.held.has(id)) await new Promise<void>((r) => rt.releases.push(r));
      const answer = rt.answer(id);
      if ((answer.status ?? 200) < 300) rt.answered.push(id);
      // After the answer is on its way: a check may look at `answered` at once.
      setImmediate(() => rt.changed());
      return answer;
    });
    self = new HoldingRuntime(server);
    return self;
  }

  get url(): string {
    return `${this.server.url}/trigger-events`;
  }

  /** Resolves when `condition` holds (checked on every request and answer). */
  until(condition: () => boolean): Promise<void> {
    return new Promise((resolve) => {
      const check = () => {
        if (!condition()) return;
        this.checks = this.checks.filter((c) => c !== check);
        resolve();
      };
      this.checks.push(check);
      check();
    });
  }

  /** Lets every held POST be answered, and holds no more. */
  release(): void {
    this.held.clear();
    for (const r of this.releases.splice(0)) r();
  }

  get holding(): number {
    return this.releases.length;
  }

  private changed(): void {
    for (const c of [...this.checks]) c();
  }

  close(): Promise<void> {
    this.release();
    return this.server.close();
  }
}

let runtime: HoldingRuntime;
beforeAll(async () => {
  runtime = await HoldingRuntime.start();
});
afterAll(async () => {
  await runtime.close();
  await stopTestDynamo();
});
const open: TestContext[] = [];
afterEach(() => {
  runtime.release();
  runtime.answered.length = 0;
  runtime.received.length = 0;
  runtime.answer = () => ({ status: 200, body: { ok: true } });
  for (const t of open.splice(0)) t.close();
});

async function setup(): Promise<TestContext> {
  const t = await testContext({ AGENT_RUNTIME_URL: runtime.url });
  open.push(t);
  return t;
}

function event(n: number): TriggerEvent {
  return {
    id: `evt_${n}`,
    trigger: 'github.new_issue',
    subscriptionId: 'sub_1',
    agentId: 'agent-1',
    connectionId: 'conn_1',
    deliveryId: `guid-${n}`,
    occurredAt: '2026-11-22T10:00:00.000Z',
    event: { issue: { number: n } },
  };
}

/** One pass of an SQS event source over `queue`: receive, dispatch on `lane`, delete what succeeded. */
async function eventSourcePass(
  t: TestContext,
  queue: PollableQueue,
  options: Omit<Parameters<typeof dispatchBatch>[3], 'work'>,
): Promise<{ received: number; failed: string[] }> {
  const messages = await queue.receive(10, 180);
  const { failedMessageIds } = await dispatchBatch(t.ctx, messages, queue, { ...options, work: providerWork });
  for (const m of messages) if (!failedMessageIds.includes(m.messageId)) await queue.delete(m.receiptHandle);
  return { received: messages.length, failed: failedMessageIds };
}

describe('tenants: one tenant slow or failing delays nobody else', () => {
  /** An event of `tenant`: its own connection (its group on the queue) and its own agent (its circuit). */
  const of = (tenant: string, n: number): TriggerEvent => ({
    ...event(n),
    id: `evt_${tenant}_${n}`,
    connectionId: `conn_${tenant}`,
    agentId: `agent-${tenant}`,
  });

  it("posts a quiet tenant's event while a slow tenant's POSTs hold the pool: the queue takes each tenant in turn", async () => {
    const t = await setup();
    const slow = Array.from({ length: 20 }, (_, n) => of('slow', 100 + n));
    for (const e of slow) runtime.held.add(e.id);
    // The slow tenant's backlog is queued first; first in, first out would fill the pool with it.
    await enqueueEvents(t.ctx, slow);
    await enqueueEvents(t.ctx, [of('quiet', 1)]);
    const pool = new DispatchPool(t.ctx, t.queues.queue, {
      size: 4,
      narrowSize: 4,
      visibilitySeconds: 20,
      lane: singleLane(t.ctx, t.queues.queue),
      circuits: new CircuitBoard(t.clock),
      work: providerWork,
    });
    try {
      expect(await pool.fill()).toBe(4);
      await runtime.until(() => runtime.answered.includes('evt_quiet_1') && runtime.holding === 3);
      // Delivered while the slow tenant's three POSTs are still held.
      expect(runtime.answered).toEqual(['evt_quiet_1']);
    } finally {
      runtime.release();
      await pool.drain();
    }
  });

  it("a Retry-After from one agent's runtime pauses that agent's events only", async () => {
    const t = await setup();
    const circuits = new CircuitBoard(t.clock);
    const lane = singleLane(t.ctx, t.queues.queue);
    runtime.answer = (id) =>
      id === 'evt_failing_1' ? { status: 503, headers: { 'retry-after': '120' } } : { status: 200, body: { ok: true } };
    await enqueueEvents(t.ctx, [of('failing', 1)]);
    expect(await eventSourcePass(t, t.queues.queue, { lane, circuits })).toEqual({ received: 1, failed: [] });
    // The failing agent's next event is deferred without a POST; the quiet agent's goes at once.
    await enqueueEvents(t.ctx, [of('failing', 2), of('quiet', 3)]);
    expect(await eventSourcePass(t, t.queues.queue, { lane, circuits })).toEqual({ received: 2, failed: [] });
    expect(runtime.received).toEqual(['evt_failing_1', 'evt_quiet_3']);
    expect(runtime.answered).toEqual(['evt_quiet_3']);
    expect(t.metrics.counts.get('dispatch_deferred')).toBe(1);
    expect(circuits.for(circuitKey(runtime.url, 'agent-quiet')).snapshot().state).toBe('closed');
    expect(circuits.for(circuitKey(runtime.url, 'agent-failing')).snapshot()).toMatchObject({ state: 'open', reason: 'retry_after' });
  });
});
