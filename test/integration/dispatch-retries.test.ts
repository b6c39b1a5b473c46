import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { openLocalQueues } from '../../shared/adapters/local/local-queues';
import { backoffSeconds } from '../../shared/dispatch/backoff';
import { CircuitBoard } from '../../shared/dispatch/circuit-board';
import { enqueueEvents } from '../../shared/dispatch/fan-out';
import { singleLane } from '../../shared/dispatch/lane';
import { maxReceiveCount } from '../../shared/dispatch/redrive-policy';
import { providerWork } from '../../shared/wiring/provider-work';
import { DispatchPool } from '../../local/dispatch-pool';
import { TestClock } from '../helpers/test-clock';
import { stopTestDynamo } from '../helpers/dynamo';
import { HoldingRuntime, dispatchTestEvent as event } from '../helpers/holding-runtime';
import type { TestContext } from '../helpers/test-context';

const runtime = await HoldingRuntime.start();
afterAll(async () => {
  await runtime.close();
  await stopTestDynamo();
});
afterEach(() => runtime.reset());

/** The local runtime's consumer as local/jobs.ts builds it: one lane whose events out of tries go to the dead-letter queue. */
function localPool(t: TestContext): DispatchPool {
  return new DispatchPool(t.ctx, t.queues.queue, {
    size: 10,
    narrowSize: 10,
    visibilitySeconds: 20,
    lane: singleLane(t.ctx, t.queues.queue, t.queues.dlq),
    // Eight failures are fewer than the circuit's ten samples: it stays closed, every try is posted.
    circuits: new CircuitBoard(t.clock),
    work: providerWork,
  });
}

/** Receives what is visible now and works it to the end; answers how many messages it took. */
async function pass(pool: DispatchPool): Promise<number> {
  const started = await pool.fill();
  await pool.drain();
  return started;
}

describe('retries wait out of flight', () => {
  it('a failed POST leaves nothing in flight: the retry is a delayed copy that comes at its backoff, not before', async () => {
    const t = await runtime.setup();
    let tries = 0;
    runtime.answer = () => (++tries === 1 ? { status: 503, body: { error: 'busy' } } : { status: 200, body: { ok: true } });
    await enqueueEvents(t.ctx, [event(1)]);
    const pool = localPool(t);
    expect(await pass(pool)).toBe(1);
    expect(runtime.received).toEqual(['evt_1']);
    // The failed message is gone; its copy waits, delayed, and counts against no in-flight limit.
    expect(t.queues.queue.inFlight()).toBe(0);
    expect(t.queues.queue.size()).toBe(1);
    expect(t.queues.dlq.size()).toBe(0);
    t.clock.advance(backoffSeconds(1) * 1000 - 1);
    expect(await pass(pool)).toBe(0);
    t.clock.advance(1);
    expect(await pass(pool)).toBe(1);
    expect(runtime.answered).toEqual(['evt_1']);
    expect(t.queues.queue.size()).toBe(0);
    expect(t.metrics.counts.get('dispatch_retry')).toBe(1);
  });

  it('the copies carry the count of tries: after the last try the event is in the dead-letter queue, as it was queued', async () => {
    const t = await runtime.setup();
    runtime.answer = () => ({ status: 500, body: { error: 'down' } });
    await enqueueEvents(t.ctx, [event(2)]);
    const queued = t.queues.queue.peek(1)[0]?.body;
    const pool = localPool(t);
    for (let n = 1; n <= maxReceiveCount; n++) {
      expect(await pass(pool)).toBe(1);
      expect(t.queues.queue.inFlight()).toBe(0);
      // Each try's copy is a new message, received once: the tries it carries, not its own receives, end it.
      if (n < maxReceiveCount) t.clock.advance(backoffSeconds(n) * 1000);
    }
    expect(runtime.received).toHaveLength(maxReceiveCount);
    expect(t.queues.queue.size()).toBe(0);
    const [dead] = await t.queues.deadLetters.list(10);
    expect(dead?.body).toBe(queued);
    expect(t.metrics.counts.get('events_dead_lettered')).toBe(1);
    // A redrive starts the tries over: the next failure is a retry, not a dead letter.
    expect(await t.queues.deadLetters.redrive()).toBe(1);
    expect(await pass(pool)).toBe(1);
    expect(t.queues.dlq.size()).toBe(0);
    expect(t.queues.queue.size()).toBe(1);
    expect(t.queues.queue.inFlight()).toBe(0);
  });

  it('a retry keeps its tenant group, and the count of tries it carries survives a restart of the queue', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'retry-queue-'));
    const clock = new TestClock();
    try {
      const first = openLocalQueues({ dir, name: 'dispatch', clock });
      await first.queue.sendBatch([{ id: 'm', body: '{"x":1}', group: 'conn_a', attempts: 3 }]);
      first.close();
      const again = openLocalQueues({ dir, name: 'dispatch', clock });
      const [m] = await again.queue.receive(1, 20);
      expect(m).toMatchObject({ receiveCount: 1, attempts: 3, group: 'conn_a' });
      again.close();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
