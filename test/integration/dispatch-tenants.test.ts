import { describe, expect, it } from 'vitest';
import { CircuitBoard, circuitKey } from '../../shared/dispatch/circuit-board';
import { singleLane } from '../../shared/dispatch/lane';
import { providerWork } from '../../shared/wiring/provider-work';
import { DispatchPool } from '../../local/dispatch-pool';
import { enqueueEvents } from '../../shared/dispatch/fan-out';
import type { TriggerEvent } from '../../shared/domain/model';
import { useHoldingRuntime, dispatchTestEvent as event, eventSourcePass } from '../helpers/holding-runtime';

const runtime = await useHoldingRuntime();
const setup = () => runtime.setup();

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
