import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { TriggerEvent } from '../../shared/domain/model';
import { enqueueEvents } from '../../shared/dispatch/fan-out';
import type { Store } from '../../shared/ports';
import { matchesLeadingKey, tableAccessByRole } from '../../shared/store/table-access';
import { consumerPass } from '../helpers/consumer-pass';
import { stopTestDynamo } from '../helpers/dynamo';
import { FakeAgentRuntime } from '../helpers/fake-agent-runtime';
import { testContext, type TestContext } from '../helpers/test-context';

/**
 * Runs a role's real flows with the Store port recording every partition key it touches
 * (for a Query on an index: the index's partition key, which is what IAM's
 * dynamodb:LeadingKeys checks there), then asserts each one is allowed by the role's
 * declared patterns. Nothing here evaluates IAM itself: this is what keeps the stack's
 * LeadingKeys conditions from breaking a flow silently.
 */
function recording(store: Store, touched: string[]): Store {
  return {
    get: (key, opts) => (touched.push(key.pk), store.get(key, opts)),
    put: (item, opts) => (touched.push(item.pk), store.put(item, opts)),
    delete: (key, opts) => (touched.push(key.pk), store.delete(key, opts)),
    query: (input) => (touched.push(input.index ? `${input.index}:${input.pk}` : input.pk), store.query(input)),
  };
}

function disallowed(role: string, touched: string[]): string[] {
  const patterns = tableAccessByRole[role];
  if (!patterns) throw new Error(`no declared table access for role ${role}`);
  const value = (k: string) => k.replace(/^gsi[12]:/, '');
  return [...new Set(touched)].filter((k) => !patterns.some((p) => matchesLeadingKey(p, value(k)))).map((k) => `${role}: ${k}`);
}

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

describe('table access by role (the LeadingKeys the stack grants)', () => {
  it('matches IAM StringLike patterns', () => {
    expect(matchesLeadingKey('EVT#*', 'EVT#evt_1')).toBe(true);
    expect(matchesLeadingKey('EVT#*', 'EVTX#1')).toBe(false);
    expect(matchesLeadingKey('EVT#*', 'CONN#1')).toBe(false);
  });

  it('dispatch: a delivery, a failed attempt retried, and a redelivered duplicate touch only its declared items', async () => {
    const t = await testContext({ AGENT_RUNTIME_URL: runtime.url });
    open.push(t);
    const touched: string[] = [];
    const dispatchCtx = { ...t.ctx, store: recording(t.ctx.store, touched) };
    await enqueueEvents(t.ctx, [event(1), event(2)]);
    runtime.answers.push({ status: 500 });
    const first = await consumerPass(dispatchCtx, t.queues.queue);
    expect(first.received).toBe(2);
    t.clock.advance(10 * 60_000);
    await consumerPass(dispatchCtx, t.queues.queue);
    // The same event again (an at-least-once redelivery): the done claim answers it.
    await enqueueEvents(t.ctx, [event(1)]);
    await consumerPass(dispatchCtx, t.queues.queue);
    expect(touched.length).toBeGreaterThan(0);
    expect(disallowed('dispatch', touched)).toEqual([]);
  });

  it('fails naming the role and key when a flow touches an undeclared family', () => {
    expect(disallowed('dispatch', ['EVT#e1', 'gsi2:CONNS'])).toEqual(['dispatch: gsi2:CONNS']);
  });
});
