import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { TriggerEvent } from '../../shared/domain/model';
import { dispatchMessage } from '../../shared/dispatch/dispatch-batch';
import { providerWork } from '../../shared/wiring/provider-work';
import { enqueueEvents } from '../../shared/dispatch/fan-out';
import { maxReceiveCount } from '../../shared/dispatch/redrive-policy';
import { readSummary } from '../../shared/store/event-history';
import { consumerPass } from '../helpers/consumer-pass';
import { stopTestDynamo } from '../helpers/dynamo';
import { FakeAgentRuntime } from '../helpers/fake-agent-runtime';
import { testContext, type TestContext } from '../helpers/test-context';

// What the operator reads agrees: the dead-letter queue holds an event from the moment its
// history says dead_lettered, not after the backoff of a try that will never come.

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

const event: TriggerEvent = {
  id: 'evt_dlagree1',
  trigger: 'github.new_issue',
  subscriptionId: 'sub_1',
  agentId: 'agent-1',
  connectionId: 'conn_1',
  deliveryId: 'guid-dlagree-1',
  occurredAt: '2026-11-22T10:00:00.000Z',
  event: { repository: { full_name: 'octo/hello', owner: { login: 'octo' } }, issue: { number: 1 } },
};

describe('the dead-letter queue and the event history', () => {
  it('an event whose last try fails is in the dead-letter queue as soon as its history says dead_lettered', async () => {
    const t = await testContext({ AGENT_RUNTIME_URL: runtime.url }, { maxReceives: maxReceiveCount });
    open.push(t);
    for (let i = 0; i < maxReceiveCount; i++) runtime.answers.push({ status: 500, body: {} });
    await enqueueEvents(t.ctx, [event]);
    for (let i = 1; i <= maxReceiveCount; i++) {
      await consumerPass(t.ctx, t.queues.queue);
      // Up to each next try, never past it: after the last one the clock stands still.
      if (i < maxReceiveCount) t.clock.advance(3_600_000);
    }
    expect(runtime.requests).toHaveLength(maxReceiveCount);
    expect((await readSummary(t.ctx.store, event.id))?.status).toBe('dead_lettered');
    const [dead] = await t.queues.deadLetters.list(10);
    expect(dead?.body).toContain(event.id);
    expect(dead?.receiveCount).toBe(maxReceiveCount);
    expect(t.queues.queue.size()).toBe(0);
  });

  it('a failed last try releases its message at once (SQS dead-letters only on a receive), an earlier one backs off', async () => {
    const t = await testContext({ AGENT_RUNTIME_URL: runtime.url }, { maxReceives: maxReceiveCount });
    open.push(t);
    runtime.answers.push({ status: 500, body: {} }, { status: 500, body: {} });
    const postponed: number[] = [];
    const consumer = { changeVisibility: async (_receipt: string, seconds: number) => void postponed.push(seconds) };
    const message = (receiveCount: number) => ({
      messageId: `m-${receiveCount}`,
      body: JSON.stringify(event),
      receiptHandle: `r-${receiveCount}`,
      receiveCount,
      sentAt: t.clock.now(),
    });
    expect(await dispatchMessage(t.ctx, message(maxReceiveCount - 1), consumer, { work: providerWork })).toBe('failed');
    expect(await dispatchMessage(t.ctx, message(maxReceiveCount), consumer, { work: providerWork })).toBe('failed');
    expect(postponed[0]).toBeGreaterThan(0);
    expect(postponed[1]).toBe(0);
  });
});
