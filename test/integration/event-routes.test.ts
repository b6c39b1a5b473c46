import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { TriggerEvent } from '../../shared/domain/model';
import { enqueueEvents } from '../../shared/dispatch/fan-out';
import { maxEventsPerPage } from '../../shared/events/event-routes-schemas';
import { queuedSummary, summaryRow } from '../../shared/store/event-history';
import { SubscriptionRepo } from '../../shared/store/subscription-repo';
import { consumerPass } from '../helpers/consumer-pass';
import { stopTestDynamo } from '../helpers/dynamo';
import { FakeAgentRuntime } from '../helpers/fake-agent-runtime';
import { platformApiCaller } from '../helpers/platform-api-caller';
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

async function setup() {
  const t = await testContext({ AGENT_RUNTIME_URL: runtime.url });
  open.push(t);
  return { t, api: platformApiCaller(t.ctx), pass: () => consumerPass(t.ctx, t.queues.queue) };
}

function event(n: number, over: Partial<TriggerEvent> = {}, repo = 'octo/hello'): TriggerEvent {
  return {
    id: `evt_r${n}`,
    trigger: 'github.new_issue',
    subscriptionId: 'sub_1',
    agentId: 'agent-1',
    connectionId: 'conn_a',
    deliveryId: `guid-${n}`,
    occurredAt: '2026-11-22T10:00:00.000Z',
    event: { repository: { full_name: repo, owner: { login: repo.split('/')[0] } }, issue: { number: n } },
    ...over,
  };
}

/** Queues events one clock tick apart, so that their order is their number. */
async function queueInOrder(t: TestContext, events: TriggerEvent[]): Promise<void> {
  for (const e of events) {
    await enqueueEvents(t.ctx, [e]);
    t.clock.advance(1000);
  }
}

describe('GET /events: filters and paging', () => {
  it('lists newest first and pages with a cursor that holds while new events arrive', async () => {
    const { t, api } = await setup();
    await queueInOrder(
      t,
      Array.from({ length: 5 }, (_, i) => event(i + 1)),
    );
    const first = await api('GET', '/events?limit=2');
    expect(first.status).toBe(200);
    expect(first.body.events.map((e: { id: string }) => e.id)).toEqual(['evt_r5', 'evt_r4']);
    expect(first.body.events[0]).toMatchObject({ status: 'queued', repository: 'octo/hello', connectionId: 'conn_a' });
    expect(first.body.events[0].queuedAt).toMatch(/Z$/);
    // An event queued between two pages shows on a fresh first page, never in the middle of this paging.
    await queueInOrder(t, [event(6)]);
    const second = await api('GET', `/events?limit=2&cursor=${first.body.nextCursor}`);
    expect(second.body.events.map((e: { id: string }) => e.id)).toEqual(['evt_r3', 'evt_r2']);
    const third = await api('GET', `/events?limit=2&cursor=${second.body.nextCursor}`);
    expect(third.body.events.map((e: { id: string }) => e.id)).toEqual(['evt_r1']);
    expect(third.body.nextCursor).toBeUndefined();
  });

  it('filters by trigger, status, repository, connection and agent', async () => {
    const { t, api, pass } = await setup();
    await queueInOrder(t, [
      event(1),
      event(2, { trigger: 'github.new_pull_request' }),
      event(3, { connectionId: 'conn_b' }, 'octo/other'),
      event(4, { agentId: 'agent-2' }),
    ]);
    const ids = async (q: string) => (await api('GET', `/events?${q}`)).body.events.map((e: { id: string }) => e.id);
    expect(await ids('trigger=github.new_pull_request')).toEqual(['evt_r2']);
    expect(await ids('repository=octo/other')).toEqual(['evt_r3']);
    expect(await ids('repository=OCTO/Hello')).toEqual(['evt_r4', 'evt_r2', 'evt_r1']);
    expect(await ids('connectionId=conn_b')).toEqual(['evt_r3']);
    expect(await ids('agentId=agent-2')).toEqual(['evt_r4']);
    expect(await ids('connectionId=conn_a&agentId=agent-1&trigger=github.new_issue')).toEqual(['evt_r1']);
    await pass();
    expect(await ids('status=delivered')).toHaveLength(4);
    expect(await ids('status=queued')).toEqual([]);
  });

  it(`cuts a larger limit to ${maxEventsPerPage} and pages on`, async () => {
    const { t, api } = await setup();
    const now = t.clock.now();
    const rows = Array.from({ length: maxEventsPerPage + 5 }, (_, i) => summaryRow(queuedSummary(event(i), now + i), now));
    await t.ctx.store.putAll(rows);
    const page = await api('GET', '/events?limit=5000');
    expect(page.status).toBe(200);
    expect(page.body.events).toHaveLength(maxEventsPerPage);
    const rest = await api('GET', `/events?limit=5000&cursor=${page.body.nextCursor}`);
    expect(rest.body.events).toHaveLength(5);
  });

  it('names each bad or unknown parameter, and suggests the one meant', async () => {
    const { api } = await setup();
    const bad = async (q: string) => {
      const res = await api('GET', `/events?${q}`);
      expect(res.status).toBe(400);
      expect(res.body.error.code).toBe('invalid_input');
      return res.body.error as { message: string; details: { fields: { field: string; message: string }[] } };
    };
    expect((await bad('status=lost')).details.fields.map((f) => f.field)).toEqual(['status']);
    expect((await bad('trigger=github.nope')).details.fields[0]).toMatchObject({ field: 'trigger' });
    expect((await bad('limit=0')).details.fields[0]).toMatchObject({ field: 'limit' });
    expect((await bad('limit=ten')).details.fields[0]).toMatchObject({ field: 'limit' });
    expect((await bad('repository=just-a-name')).details.fields[0]).toMatchObject({ field: 'repository', message: 'expected owner/name' });
    expect((await bad('cursor=not-one')).details.fields[0]).toMatchObject({ field: 'cursor' });
    const unknown = await bad('satus=queued');
    expect(unknown.details.fields[0]?.field).toBe('satus');
    expect(unknown.message).toContain('Did you mean status?');
  });
});

describe('GET /events/{id} and replay', () => {
  it('shows an event with each attempt, its answer or reason and the next try, and the event itself', async () => {
    const { t, api, pass } = await setup();
    runtime.answers.push({ status: 502, body: {} });
    await queueInOrder(t, [event(1)]);
    await pass();
    const retrying = await api('GET', '/events/evt_r1');
    expect(retrying.status).toBe(200);
    expect(retrying.body).toMatchObject({ id: 'evt_r1', status: 'retrying', attemptCount: 1 });
    expect(retrying.body.attempts).toEqual([expect.objectContaining({ outcome: 'failed', status: 502, reason: 'HTTP 502' })]);
    expect(Date.parse(retrying.body.nextTryAt)).toBeGreaterThan(t.clock.now());
    expect(retrying.body.event).toMatchObject({ id: 'evt_r1', trigger: 'github.new_issue', event: { issue: { number: 1 } } });
    t.clock.advance(3_600_000);
    await pass();
    const delivered = await api('GET', '/events/evt_r1');
    expect(delivered.body).toMatchObject({ status: 'delivered', attemptCount: 2, lastAttempt: { outcome: 'delivered', status: 200 } });
    expect((await api('GET', '/events/evt_nope')).status).toBe(404);
  });

  it('replays an event through the queue: the agent runtime receives the same event under a new id that names the original', async () => {
    const { t, api, pass } = await setup();
    const connection = await t.connect({ id: 'conn_a' });
    await new SubscriptionRepo(t.ctx.store).create({
      id: 'sub_1',
      connectionId: connection.id,
      trigger: 'github.new_issue',
      agentId: 'agent-1',
      filters: {},
      delivery: 'webhook',
      createdAt: new Date(t.clock.now()).toISOString(),
    });
    await queueInOrder(t, [event(1)]);
    await pass();
    const replay = await api('POST', '/events/evt_r1/replay');
    expect(replay.status).toBe(202);
    expect(replay.body).toMatchObject({ replayOf: 'evt_r1', status: 'queued' });
    await pass();
    const received = runtime.events();
    expect(received).toHaveLength(2);
    expect(received[1]).toMatchObject({ id: replay.body.id, replayOf: 'evt_r1', event: received[0]?.event, trigger: 'github.new_issue' });
    expect(received[0]).not.toHaveProperty('replayOf');
    expect((await api('GET', '/events/evt_r1')).body).toMatchObject({
      status: 'replayed',
      previousStatus: 'delivered',
      replayedBy: [replay.body.id],
    });
    expect((await api('GET', `/events/${replay.body.id}`)).body).toMatchObject({ status: 'delivered', replayOf: 'evt_r1' });
    expect((await api('POST', '/events/evt_r1/replay', { again: true })).status).toBe(400);
  });

  it('limits a scoped key to the events of its connections, and answers 404 for the others as for an unknown id', async () => {
    const { t, api } = await setup();
    const a = await t.connect({ id: 'conn_a' });
    await t.connect({ id: 'conn_b' });
    await queueInOrder(t, [event(1, { connectionId: a.id }), event(2, { connectionId: 'conn_b' })]);
    const made = await api('POST', '/keys', { label: 'agent', connections: [a.id] });
    expect(made.status).toBe(201);
    const asKey = `Bearer ${made.body.key}`;
    const listed = await api('GET', '/events', undefined, asKey);
    expect(listed.body.events.map((e: { id: string }) => e.id)).toEqual(['evt_r1']);
    expect((await api('GET', '/events?connectionId=conn_b', undefined, asKey)).status).toBe(403);
    // Another connection's event is answered as an unknown one: the key learns nothing of it.
    const theirs = await api('GET', '/events/evt_r2', undefined, asKey);
    expect(theirs.status).toBe(404);
    expect(theirs.body).toEqual({ error: { code: 'not_found', message: 'No event evt_r2 in the history (events are kept 30 days)' } });
    expect((await api('GET', '/events/evt_r9', undefined, asKey)).body.error.message).toBe(
      'No event evt_r9 in the history (events are kept 30 days)',
    );
    expect((await api('POST', '/events/evt_r2/replay', undefined, asKey)).status).toBe(404);
    expect((await api('GET', '/events/evt_r1', undefined, asKey)).status).toBe(200);
    expect(t.queues.queue.size()).toBe(2);
  });
});
