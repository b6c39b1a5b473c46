import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import type { TriggerEvent } from '../../shared/domain/model';
import { dispatchBatch } from '../../shared/dispatch/dispatch-batch';
import { providerWork } from '../../shared/wiring/provider-work';
import { enqueueEvents } from '../../shared/dispatch/fan-out';
import { startFakeHttp, type FakeResponse, type FakeServer } from '../helpers/fake-http';
import { consumerPass } from '../helpers/consumer-pass';
import { stopTestDynamo } from '../helpers/dynamo';
import { testContext, type TestContext } from '../helpers/test-context';

/**
 * Two workers, one event: the first one's POST outlives its claim's lease, the second takes
 * the claim over, and the first then fails and gives the claim back. Giving back what it no
 * longer holds must change nothing: the agent runtime takes the event once.
 */
let runtime: FakeServer;
/** The answers of the POSTs held by the test, in arrival order; the others answer 200 at once. */
const held: Array<(answer: FakeResponse) => void> = [];
let holdNext = 0;
beforeAll(async () => {
  runtime = await startFakeHttp(() => {
    if (holdNext === 0) return { status: 200, body: { ok: true } };
    holdNext--;
    return new Promise<FakeResponse>((answer) => held.push(answer));
  });
});
afterAll(async () => {
  await runtime.close();
  await stopTestDynamo();
});
const open: TestContext[] = [];
afterEach(() => {
  for (const t of open.splice(0)) t.close();
});

const event: TriggerEvent = {
  id: 'evt_lapsed',
  trigger: 'github.new_issue',
  subscriptionId: 'sub_1',
  agentId: 'agent-1',
  connectionId: 'conn_1',
  deliveryId: 'guid-lapsed',
  occurredAt: '2026-11-22T10:00:00.000Z',
  event: { issue: { number: 1 } },
};

/** Waits for the fake runtime to hold `n` POSTs (an arrival, not a verdict on time). */
const heldPosts = (n: number) => vi.waitFor(() => expect(held).toHaveLength(n), { timeout: 10_000 });

describe('a dispatch claim whose lease lapsed', () => {
  it('is not freed by its first holder once another worker took it over: the agent runtime takes the event once', async () => {
    const t = await testContext({ AGENT_RUNTIME_URL: `${runtime.url}/trigger-events` });
    open.push(t);
    const q = t.queues.queue;
    // Two copies of one event (an intake attempt taken over after a crash queues it again).
    await enqueueEvents(t.ctx, [event]);
    await enqueueEvents(t.ctx, [event]);
    const [first, second] = await q.receive(10, 300);
    expect(second).toBeDefined();
    holdNext = 2;
    // Worker A claims the event; its POST hangs past the claim's lease.
    const a = dispatchBatch(t.ctx, [first!], q, { work: providerWork });
    await heldPosts(1);
    t.clock.advance(60_000);
    // Worker B takes the lapsed claim over and POSTs; its answer is still on the way.
    const b = dispatchBatch(t.ctx, [second!], q, { work: providerWork });
    await heldPosts(2);
    // A's POST fails: A gives back the claim it no longer holds, and retries its message later.
    held[0]!({ status: 500 });
    expect((await a).failedMessageIds).toEqual([first!.messageId]);
    // A's retry comes round (after its 5 s backoff) while B's POST is still in flight.
    t.clock.advance(6_000);
    await consumerPass(t.ctx, q);
    held[1]!({ status: 200 });
    expect((await b).failedMessageIds).toEqual([]);
    await q.delete(second!.receiptHandle);
    for (let i = 0; i < 5 && q.size() > 0; i++) {
      t.clock.advance(10 * 60_000);
      await consumerPass(t.ctx, q);
    }
    expect(q.size()).toBe(0);
    const accepted = runtime.requests.filter((_, i) => i !== 0);
    expect(accepted.map((r) => (JSON.parse(r.body) as { id: string }).id)).toEqual(['evt_lapsed']);
  });
});
