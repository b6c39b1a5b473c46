import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { TriggerEvent } from '../../shared/domain/model';
import { enqueueEvents } from '../../shared/dispatch/fan-out';
import type { RecordedRequest } from '../helpers/fake-http';
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

async function setup() {
  const t = await testContext({ AGENT_RUNTIME_URL: runtime.url });
  open.push(t);
  return { t, pass: () => consumerPass(t.ctx, t.queues.queue) };
}

const event = (n: number): TriggerEvent => ({
  id: `evt_${n}`,
  trigger: 'github.new_issue',
  subscriptionId: 'sub_1',
  agentId: 'agent-1',
  connectionId: 'conn_1',
  deliveryId: `d-${n}`,
  occurredAt: '2026-11-22T10:00:00.000Z',
  event: { issue: { number: n } },
});

describe('dispatch signatures: a signed timestamp so agent runtimes can refuse replays', () => {
  it('keeps X-Signature-256 as it is and adds a timestamp bound into a second signature', async () => {
    const { t, pass } = await setup();
    await enqueueEvents(t.ctx, [event(1)]);
    expect(await pass()).toEqual({ received: 1, failed: 0 });
    const req = runtime.requests[0]!;
    // The contract's header, unchanged: HMAC of the body alone.
    expect(FakeAgentRuntime.signatureValid(req, testSigningSecret)).toBe(true);
    expect(req.headers['x-signature-timestamp']).toBe(String(Math.floor(t.clock.now() / 1000)));
    expect(FakeAgentRuntime.timestampedSignatureValid(req, testSigningSecret, t.clock.now())).toBe(true);
    expect(FakeAgentRuntime.timestampedSignatureValid(req, 'another-secret', t.clock.now())).toBe(false);

    // The same request replayed ten minutes later is stale; a fresh timestamp header does not help.
    expect(FakeAgentRuntime.timestampedSignatureValid(req, testSigningSecret, t.clock.now() + 600_000)).toBe(false);
    const retimed: RecordedRequest = {
      ...req,
      headers: { ...req.headers, 'x-signature-timestamp': String(Math.floor(t.clock.now() / 1000) + 600) },
    };
    expect(FakeAgentRuntime.timestampedSignatureValid(retimed, testSigningSecret, t.clock.now() + 600_000)).toBe(false);
  });

  it('signs each attempt at its own time, so a retry after backoff is not stale', async () => {
    const { t, pass } = await setup();
    runtime.answers.push({ status: 500 });
    await enqueueEvents(t.ctx, [event(2)]);
    expect(await pass()).toEqual({ received: 1, failed: 1 });
    t.clock.advance(600_000);
    await pass();
    expect(runtime.requests).toHaveLength(2);
    const [first, retry] = runtime.requests;
    expect(Number(retry!.headers['x-signature-timestamp']) - Number(first!.headers['x-signature-timestamp'])).toBe(600);
    expect(FakeAgentRuntime.timestampedSignatureValid(retry!, testSigningSecret, t.clock.now())).toBe(true);
    expect(retry!.headers['x-signature-256']).toBe(first!.headers['x-signature-256']);
  });
});
