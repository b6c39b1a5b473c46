import { createServer } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { TriggerEvent } from '../../shared/domain/model';
import { enqueueEvents } from '../../shared/dispatch/fan-out';
import { maxReceiveCount } from '../../shared/dispatch/redrive-policy';
import { maxKeptAttempts, readBody, readSummary } from '../../shared/store/event-history';
import { consumerPass } from '../helpers/consumer-pass';
import { stopTestDynamo } from '../helpers/dynamo';
import { FakeAgentRuntime } from '../helpers/fake-agent-runtime';
import { testContext, type TestContext } from '../helpers/test-context';

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

async function setup(agentRuntimeUrl: string = runtime.url) {
  const t = await testContext({ AGENT_RUNTIME_URL: agentRuntimeUrl }, { maxReceives: maxReceiveCount });
  open.push(t);
  return { t, pass: () => consumerPass(t.ctx, t.queues.queue) };
}

function event(n: number): TriggerEvent {
  return {
    id: `evt_h${n}`,
    trigger: 'github.new_issue',
    subscriptionId: 'sub_1',
    agentId: 'agent-1',
    connectionId: 'conn_1',
    deliveryId: `guid-${n}`,
    occurredAt: '2026-11-22T10:00:00.000Z',
    event: { repository: { full_name: 'octo/hello', owner: { login: 'octo' } }, issue: { number: n } },
  };
}

/** A loopback port nothing listens on: bound, then closed. */
async function refusedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as { port: number }).port;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

describe('event history', () => {
  it('keeps a delivered event with its subject, its one attempt and its body', async () => {
    const { t, pass } = await setup();
    await enqueueEvents(t.ctx, [event(1)]);
    const queued = await readSummary(t.ctx.store, 'evt_h1');
    expect(queued).toMatchObject({ status: 'queued', repository: 'octo/hello', organization: 'octo', attemptCount: 0 });
    await pass();
    const done = await readSummary(t.ctx.store, 'evt_h1');
    expect(done).toMatchObject({ status: 'delivered', trigger: 'github.new_issue', connectionId: 'conn_1', agentId: 'agent-1' });
    expect(done?.attempts).toEqual([expect.objectContaining({ outcome: 'delivered', status: 200, lane: 'main' })]);
    const body = await readBody(t.ctx.store, 'evt_h1');
    expect(body && 'json' in body && JSON.parse(body.json).id).toBe('evt_h1');
  });

  it('says why and when a retried event is tried next: the answer status, then the refused connection by address', async () => {
    const { t, pass } = await setup();
    runtime.answers.push({ status: 503, body: { error: 'busy' } });
    await enqueueEvents(t.ctx, [event(2)]);
    await pass();
    const retrying = await readSummary(t.ctx.store, 'evt_h2');
    expect(retrying?.status).toBe('retrying');
    expect(retrying?.attempts[0]).toMatchObject({ outcome: 'failed', status: 503, reason: 'HTTP 503' });
    expect(retrying?.nextTryAt).toBeGreaterThan(t.clock.now());
    expect(retrying?.nextTryAt).toBe(retrying?.attempts[0]?.nextTryAt);

    const port = await refusedPort();
    const { t: t2, pass: pass2 } = await setup(`http://127.0.0.1:${port}/events`);
    await enqueueEvents(t2.ctx, [event(3)]);
    await pass2();
    const refused = await readSummary(t2.ctx.store, 'evt_h3');
    expect(refused?.attempts[0]?.reason).toBe(`connection refused (ECONNREFUSED 127.0.0.1:${port})`);
  });

  it('marks an event that failed its last receive dead-lettered, with every attempt', async () => {
    const { t, pass } = await setup();
    for (let i = 0; i < maxReceiveCount; i++) runtime.answers.push({ status: 500, body: {} });
    await enqueueEvents(t.ctx, [event(4)]);
    for (let i = 0; i < maxReceiveCount; i++) {
      await pass();
      t.clock.advance(3_600_000);
    }
    const dead = await readSummary(t.ctx.store, 'evt_h4');
    expect(dead?.status).toBe('dead_lettered');
    expect(dead?.attemptCount).toBe(maxReceiveCount);
    expect(dead?.nextTryAt).toBeUndefined();
    // The queue moves it at the receive after its last.
    await pass();
    expect(t.queues.dlq.size()).toBe(1);
  });

  it('keeps only the newest attempts of an event tried more often than the bound, and counts them all', async () => {
    const { t, pass } = await setup();
    const tries = maxKeptAttempts + 3;
    // Throttled answers re-enqueue a copy rather than use up receives, so an event can be tried without end.
    for (let i = 0; i < tries; i++) runtime.answers.push({ status: 429, headers: { 'retry-after': '1' }, body: {} });
    await enqueueEvents(t.ctx, [event(5)]);
    for (let i = 0; i < tries; i++) {
      await pass();
      t.clock.advance(60_000);
    }
    const s = await readSummary(t.ctx.store, 'evt_h5');
    expect(s?.attemptCount).toBe(tries);
    expect(s?.attempts).toHaveLength(maxKeptAttempts);
    expect(s?.attempts.every((a) => a.outcome === 'throttled' && a.status === 429)).toBe(true);
  });

  it("reads a batch's summaries before their POSTs in one call, not one each", async () => {
    const { t, pass } = await setup();
    await enqueueEvents(t.ctx, [21, 22, 23, 24, 25].map(event));
    const store = t.ctx.store;
    const single: string[] = [];
    const together: string[][] = [];
    const get = store.get.bind(store);
    const getAll = store.getAll.bind(store);
    store.get = (key, opts) => {
      if (key.pk.startsWith('EVH#')) single.push(key.pk);
      return get(key, opts);
    };
    store.getAll = (keys, opts) => {
      together.push(keys.map((k) => k.pk));
      return getAll(keys, opts);
    };
    await pass();
    expect(single).toEqual([]);
    expect(together).toEqual([[21, 22, 23, 24, 25].map((n) => `EVH#evt_h${n}`)]);
    for (const n of [21, 22, 23, 24, 25])
      expect(await readSummary(store, `evt_h${n}`)).toMatchObject({ status: 'delivered', attemptCount: 1 });
  });

  it('writes the history of an event queued before it was kept, at its first try', async () => {
    const { t, pass } = await setup();
    const e = event(6);
    await t.ctx.queue.sendBatch([{ id: e.id, body: JSON.stringify(e) }]);
    await pass();
    expect(await readSummary(t.ctx.store, 'evt_h6')).toMatchObject({ status: 'delivered', attemptCount: 1 });
    expect(await readBody(t.ctx.store, 'evt_h6')).toBeDefined();
  });
});
