import type { SendMessageBatchCommand } from '@aws-sdk/client-sqs';
import { describe, expect, it } from 'vitest';
import { SqsQueue, type SqsSender } from '../../shared/adapters/aws/sqs-queue';
import { CircuitBoard, circuitKey } from '../../shared/dispatch/circuit-board';
import { dispatchBatch } from '../../shared/dispatch/dispatch-batch';
import { enqueueEvents } from '../../shared/dispatch/fan-out';
import { singleLane, type Lane } from '../../shared/dispatch/lane';
import type { AppContext } from '../../shared/ports/app-context';
import type { Queue, Store } from '../../shared/ports';
import { providerWork } from '../../shared/wiring/provider-work';
import { useHoldingRuntime, agentEvent } from '../helpers/holding-runtime';
import type { TestContext } from '../helpers/test-context';

const runtime = await useHoldingRuntime();

const of = agentEvent;

/**
 * SQS's SendMessageBatch as its API reference describes it (at most 10 entries a call, each
 * answered `Successful` by its Id), its messages put on `onto`: the entries of each call are
 * noted, so a test sees how many calls a send took.
 */
function sqsOnto(onto: Queue): { queue: SqsQueue; calls: number[] } {
  const calls: number[] = [];
  const client: SqsSender = {
    async send(command) {
      const entries = (command as SendMessageBatchCommand).input.Entries ?? [];
      if (entries.length > 10) throw new Error('TooManyEntriesInBatchRequest');
      calls.push(entries.length);
      await onto.sendBatch(
        entries.map((e) => ({
          id: e.Id ?? '',
          body: e.MessageBody ?? '',
          ...(e.DelaySeconds === undefined ? {} : { delaySeconds: e.DelaySeconds }),
          ...(e.MessageGroupId === undefined ? {} : { group: e.MessageGroupId }),
        })),
      );
      return { Successful: entries.map((e) => ({ Id: e.Id })), Failed: [] };
    },
  };
  return { queue: new SqsQueue(client, 'https://sqs.us-east-1.amazonaws.com/000000000000/dispatch'), calls };
}

/** The store, with every call it takes counted. */
function counted(store: Store): { store: Store; calls: () => number } {
  let n = 0;
  const proxy = new Proxy(store, {
    get(target, name, receiver) {
      const value = Reflect.get(target, name, receiver) as unknown;
      if (typeof value !== 'function') return value;
      return (...args: unknown[]) => {
        n++;
        return (value as (...a: unknown[]) => unknown).apply(target, args);
      };
    },
  });
  return { store: proxy, calls: () => n };
}

/** One pass of the Lambda event source: up to `max` messages received, dispatched as one batch, the done ones deleted. */
async function pass(t: TestContext, ctx: AppContext, lane: Lane, circuits: CircuitBoard, max = 50): Promise<number> {
  const messages = await t.queues.queue.receive(max, 180);
  const { failedMessageIds } = await dispatchBatch(ctx, messages, t.queues.queue, { lane, circuits, work: providerWork });
  for (const m of messages) if (!failedMessageIds.includes(m.messageId)) await t.queues.queue.delete(m.receiptHandle);
  return messages.length;
}

describe('deferral: the events of an open circuit are set aside together, before any work of their own', () => {
  it('an open circuit defers a batch with one batch send per 10, no store call and no POST; each event arrives once after it closes', async () => {
    const t = await runtime.setup();
    const sqs = sqsOnto(t.queues.queue);
    const lane: Lane = { ...singleLane(t.ctx, t.queues.queue, t.queues.dlq), queue: sqs.queue };
    const circuits = new CircuitBoard(t.clock);
    // The agent's runtime asks for a pause of two minutes: its circuit opens.
    runtime.answer = (id) => (id === 'evt_failing_0' ? { status: 503, headers: { 'retry-after': '120' } } : { status: 200, body: {} });
    await enqueueEvents(t.ctx, [of('failing', 0)]);
    expect(await pass(t, t.ctx, lane, circuits)).toBe(1);
    expect(circuits.for(circuitKey(runtime.url, 'agent-failing')).snapshot().state).toBe('open');

    const backlog = Array.from({ length: 25 }, (_, n) => of('failing', n + 1));
    await enqueueEvents(t.ctx, backlog);
    const sends = sqs.calls.length;
    const store = counted(t.ctx.store);
    expect(await pass(t, { ...t.ctx, store: store.store }, lane, circuits)).toBe(25);
    expect(sqs.calls.slice(sends)).toEqual([10, 10, 5]);
    expect(store.calls()).toBe(0);
    expect(runtime.received).toEqual(['evt_failing_0']);
    expect(t.metrics.counts.get('dispatch_deferred')).toBe(25);

    // Nothing comes back while the pause lasts.
    runtime.answer = () => ({ status: 200, body: {} });
    t.clock.advance(119_000);
    expect(await pass(t, t.ctx, lane, circuits)).toBe(0);
    // Then the runtime takes events again: one probe closes the circuit, the rest follow.
    for (let round = 0; round < 10 && runtime.answered.length < 26; round++) {
      t.clock.advance(6_000);
      await pass(t, t.ctx, lane, circuits);
    }
    expect(circuits.for(circuitKey(runtime.url, 'agent-failing')).snapshot().state).toBe('closed');
    expect([...runtime.answered].sort()).toEqual(['evt_failing_0', ...backlog.map((e) => e.id)].sort());
    // None posted twice: each event of the backlog reached the runtime exactly once.
    for (const e of backlog) expect(runtime.received.filter((id) => id === e.id)).toHaveLength(1);
    expect(t.queues.queue.size()).toBe(0);
    expect(t.queues.dlq.size()).toBe(0);
  });

  it("defers only the open circuit's events: the other agents' events of the same batch are posted at once", async () => {
    const t = await runtime.setup();
    const lane = singleLane(t.ctx, t.queues.queue, t.queues.dlq);
    const circuits = new CircuitBoard(t.clock);
    runtime.answer = (id) => (id === 'evt_failing_0' ? { status: 503, headers: { 'retry-after': '60' } } : { status: 200, body: {} });
    await enqueueEvents(t.ctx, [of('failing', 0)]);
    await pass(t, t.ctx, lane, circuits);
    await enqueueEvents(t.ctx, [of('failing', 1), of('quiet', 2), of('failing', 3), of('quiet', 4)]);
    expect(await pass(t, t.ctx, lane, circuits)).toBe(4);
    expect([...runtime.answered].sort()).toEqual(['evt_quiet_2', 'evt_quiet_4']);
    expect(t.metrics.counts.get('dispatch_deferred')).toBe(2);
    // The deferred copies keep their tenant's group (beside the throttled event's own retry).
    expect(t.queues.queue.peek(10).map((m) => m.group)).toEqual(['conn_failing', 'conn_failing', 'conn_failing']);
  });

  it('when the batch send fails, each event is deferred on its own instead: none is lost', async () => {
    const t = await runtime.setup();
    let refusals = 1;
    const flaky: Queue = {
      sendBatch: async (messages) => {
        if (messages.length > 1 && refusals-- > 0) throw new Error('SQS unavailable');
        await t.queues.queue.sendBatch(messages);
      },
    };
    const lane: Lane = { ...singleLane(t.ctx, t.queues.queue, t.queues.dlq), queue: flaky };
    const circuits = new CircuitBoard(t.clock);
    runtime.answer = (id) => (id === 'evt_failing_0' ? { status: 503, headers: { 'retry-after': '60' } } : { status: 200, body: {} });
    await enqueueEvents(t.ctx, [of('failing', 0)]);
    await pass(t, t.ctx, lane, circuits);
    await enqueueEvents(t.ctx, [of('failing', 1), of('failing', 2), of('failing', 3)]);
    expect(await pass(t, t.ctx, lane, circuits)).toBe(3);
    expect(runtime.received).toEqual(['evt_failing_0']);
    expect(t.metrics.counts.get('dispatch_deferred')).toBe(3);
    // The three deferred copies, beside the throttled event's own retry; nothing left in flight.
    expect(t.queues.queue.size()).toBe(4);
    expect(t.queues.queue.inFlight()).toBe(0);
  });
});
