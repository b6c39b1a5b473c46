import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { TriggerEvent } from '../../shared/domain/model';
import { dispatchBatch } from '../../shared/dispatch/dispatch-batch';
import { providerWork } from '../../shared/wiring/provider-work';
import { enqueueEvents } from '../../shared/dispatch/fan-out';
import { consumerPass } from '../helpers/consumer-pass';
import { stopTestDynamo } from '../helpers/dynamo';
import { FakeAgentRuntime } from '../helpers/fake-agent-runtime';
import { testContext, testSigningSecret, type TestContext } from '../helpers/test-context';

let runtime: FakeAgentRuntime;
beforeAll(async () => {
  runtime = await FakeAgentRuntime.start();
});
afterAll(async () => {
  await runtime.close();
  await stopTestDynamo();
});
const open: TestContext[] = [];
afterEach(() => {
  for (const t of open.splice(0)) t.close();
  runtime.requests.length = 0;
  runtime.answers.length = 0;
});

async function setup(env: Record<string, string | undefined> = { AGENT_RUNTIME_URL: runtime.url }) {
  const t = await testContext(env);
  open.push(t);
  const q = t.queues.queue;
  const pass = () => consumerPass(t.ctx, q);
  return { t, q, pass };
}

function event(n: number, extra: Record<string, unknown> = {}): TriggerEvent {
  return {
    id: `evt_${n}`,
    trigger: 'github.new_issue',
    subscriptionId: 'sub_1',
    agentId: 'agent-1',
    connectionId: 'conn_1',
    deliveryId: `guid-${n}`,
    occurredAt: '2026-11-22T10:00:00.000Z',
    event: { issue: { number: n }, ...extra },
  };
}

describe('dispatch to the agent runtime', () => {
  it('POSTs the contract body with a valid X-Signature-256 over its exact bytes', async () => {
    const { t, pass } = await setup();
    await enqueueEvents(t.ctx, [event(1)]);
    expect(await pass()).toEqual({ received: 1, failed: 0 });
    expect(runtime.requests).toHaveLength(1);
    const req = runtime.requests[0]!;
    expect(FakeAgentRuntime.signatureValid(req, testSigningSecret)).toBe(true);
    expect(FakeAgentRuntime.signatureValid(req, 'another-secret')).toBe(false);
    expect(Object.keys(JSON.parse(req.body))).toEqual([
      'id',
      'trigger',
      'subscriptionId',
      'agentId',
      'connectionId',
      'deliveryId',
      'occurredAt',
      'event',
    ]);
    expect(JSON.parse(req.body)).toEqual(event(1));
  });

  it('retries a non-2xx answer later with exponential backoff, then delivers', async () => {
    const { t, q, pass } = await setup();
    runtime.answers.push({ status: 500 }, { status: 502 });
    await enqueueEvents(t.ctx, [event(2)]);
    expect(await pass()).toEqual({ received: 1, failed: 1 });
    expect(await q.receive(10, 30)).toHaveLength(0); // hidden for the first backoff (5 s)
    t.clock.advance(5_000);
    expect(await pass()).toEqual({ received: 1, failed: 1 });
    t.clock.advance(5_000);
    expect(await q.receive(10, 30)).toHaveLength(0); // second backoff is 10 s
    t.clock.advance(5_000);
    expect(await pass()).toEqual({ received: 1, failed: 0 });
    expect(runtime.requests.map((r) => JSON.parse(r.body).id)).toEqual(['evt_2', 'evt_2', 'evt_2']);
    expect(q.size()).toBe(0);
  });

  it('fails only the poison message of a batch; the others are delivered once and it reaches the DLQ intact', async () => {
    const { t, q, pass } = await setup();
    await q.sendBatch([{ id: 'poison', body: '{"not":"an event"' }]);
    await enqueueEvents(t.ctx, [event(3), event(4)]);
    expect(await pass()).toEqual({ received: 3, failed: 1 });
    expect(
      runtime
        .events()
        .map((e) => e.id)
        .sort(),
    ).toEqual(['evt_3', 'evt_4']);
    for (let i = 0; i < 6; i++) await pass();
    expect(runtime.requests).toHaveLength(2);
    const dead = await t.queues.deadLetters.list(10);
    expect(dead.map((d) => d.body)).toEqual(['{"not":"an event"']);
    expect(q.size()).toBe(0);
  });

  it('delivers the same event once when two copies are processed at the same time', async () => {
    const { t, q, pass } = await setup();
    await enqueueEvents(t.ctx, [event(5)]);
    await enqueueEvents(t.ctx, [event(5)]);
    const first = await pass();
    expect(first.received).toBe(2);
    t.clock.advance(120_000);
    await pass();
    expect(runtime.requests).toHaveLength(1);
    expect(q.size()).toBe(0);
  });

  it('dead-letters an event the runtime keeps refusing, after the last receive, body intact', async () => {
    const { t, q, pass } = await setup();
    for (let i = 0; i < 10; i++) runtime.answers.push({ status: 500 });
    await enqueueEvents(t.ctx, [event(6)]);
    for (let i = 0; i < 7; i++) {
      await pass();
      t.clock.advance(900_000);
    }
    expect(runtime.requests).toHaveLength(5);
    const dead = await t.queues.deadLetters.list(10);
    expect(dead).toHaveLength(1);
    expect(JSON.parse(dead[0]!.body)).toEqual(event(6));
    expect(q.size()).toBe(0);
  });

  it('never dead-letters for throttling: a 429 re-enqueues the event with its Retry-After', async () => {
    const { t, q, pass } = await setup();
    for (let i = 0; i < 8; i++) runtime.answers.push({ status: 429, headers: { 'retry-after': '30' } });
    await enqueueEvents(t.ctx, [event(7)]);
    for (let i = 0; i < 8; i++) {
      await pass();
      expect(await q.receive(10, 30)).toHaveLength(0); // waits out Retry-After
      t.clock.advance(30_000);
    }
    await pass();
    expect(runtime.requests).toHaveLength(9);
    expect(await t.queues.deadLetters.list(10)).toHaveLength(0);
    expect(q.size()).toBe(0);
  });

  it('follows a claim-check pointer to the stored body and removes the blob once delivered', async () => {
    const { t, pass } = await setup();
    const big = event(8, { blob: 'y'.repeat(250 * 1024) });
    await enqueueEvents(t.ctx, [big]);
    expect(t.blobs.values.size).toBe(1);
    await pass();
    expect(JSON.parse(runtime.requests[0]!.body)).toEqual(big);
    expect(t.blobs.values.size).toBe(0);
  });

  it('drops a second copy of a claim-checked event already delivered (its blob is gone with it) instead of dead-lettering it', async () => {
    const { t, q, pass } = await setup();
    const big = event(9, { blob: 'z'.repeat(250 * 1024) });
    // An intake attempt taken over after a crash queues the same event a second time: two
    // messages pointing at one claim-check body.
    await enqueueEvents(t.ctx, [big]);
    await enqueueEvents(t.ctx, [big]);
    expect(q.size()).toBe(2);
    // One copy first, alone (received together, the second could meet the first in progress
    // or already done, depending on timing): delivered, and its body removed with it.
    const [first] = await q.receive(1, 30);
    expect((await dispatchBatch(t.ctx, [first!], q, { work: providerWork })).failedMessageIds).toEqual([]);
    await q.delete(first!.receiptHandle);
    expect(t.blobs.values.size).toBe(0);
    // The other copy now points at nothing: a copy of a delivered event, dropped.
    expect(await pass()).toEqual({ received: 1, failed: 0 });
    expect(runtime.requests).toHaveLength(1);
    expect(q.size()).toBe(0);
    expect(t.queues.dlq.size()).toBe(0);
  });

  it('logs the event as a readable line and succeeds when AGENT_RUNTIME_URL is not set', async () => {
    const { t, q, pass } = await setup({});
    await enqueueEvents(t.ctx, [event(9)]);
    expect(await pass()).toEqual({ received: 1, failed: 0 });
    expect(runtime.requests).toHaveLength(0);
    expect(t.logLines.some((l) => l.includes('github.new_issue') && l.includes('evt_9'))).toBe(true);
    expect(q.size()).toBe(0);
  });
});
