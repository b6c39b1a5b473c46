import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { routes as platformRoutes } from '../../functions/platform-api/routes';
import { loadProviderExamples } from '../../shared/wiring/provider-examples';
import { routes as intakeRoutes } from '../../functions/webhook-intake/routes';
import { providerWebhooks } from '../../shared/wiring/provider-intake';
import { dispatchBatch } from '../../shared/dispatch/dispatch-batch';
import { providerWork } from '../../shared/wiring/provider-work';
import { nodeListener } from '../../shared/http/node-http';
import { createRouter } from '../../shared/http/router';
import type { HttpRequest, HttpResponse } from '../../shared/http/types';
import { stopTestDynamo } from '../helpers/dynamo';
import { FakeAgentRuntime } from '../helpers/fake-agent-runtime';
import { FakeGitHub } from '../helpers/fake-github-server';
import { examplePayload } from '../helpers/signed-delivery';
import { testContext, testPlatformKey, testSigningSecret, type TestContext } from '../helpers/test-context';
import { httpApiCaller } from '../helpers/platform-api-caller';

const token = 'github_pat_e2eTOKEN_000000000000000000000000000000';
let github: FakeGitHub;
let runtime: FakeAgentRuntime;
let server: Server;
let t: TestContext;
let baseUrl: string;

beforeAll(async () => {
  github = await FakeGitHub.start();
  github.addUser(token, 'Codertocat');
  runtime = await FakeAgentRuntime.start();
  let handle: (req: HttpRequest) => Promise<HttpResponse> = async () => ({ status: 503 });
  server = createServer(
    nodeListener(
      (req) => handle(req),
      () => undefined,
    ),
  );
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  t = await testContext({ GITHUB_API_URL: github.url, PUBLIC_URL: baseUrl, AGENT_RUNTIME_URL: runtime.url });
  const router = createRouter([...platformRoutes(t.ctx, { examples: loadProviderExamples }), ...intakeRoutes(t.ctx, providerWebhooks)], {
    platformApiKey: t.ctx.platformApiKey,
  });
  handle = router;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise((r) => server.close(r));
  await github.close();
  await runtime.close();
  t.close();
  await stopTestDynamo();
});

// The server listens in beforeAll: its URL is read at each call.
const api = httpApiCaller(() => baseUrl, testPlatformKey);

/** One pass of the dispatch consumer, as the local runtime's loop does it. */
async function drain() {
  const q = t.queues.queue;
  const messages = await q.receive(10, 30);
  const { failedMessageIds } = await dispatchBatch(t.ctx, messages, q, { work: providerWork });
  for (const m of messages) if (!failedMessageIds.includes(m.messageId)) await q.delete(m.receiptHandle);
  return messages.length;
}

describe('code-host trigger, end to end over HTTP', () => {
  it('token connection -> subscription -> hook at the code host -> signed delivery -> signed event at the agent runtime', async () => {
    const connection = await api('POST', '/connections', { provider: 'github', token, label: 'e2e' });
    expect(connection.status).toBe(201);

    const sub = await api('POST', '/subscriptions', {
      connectionId: connection.body.id,
      trigger: 'github.new_issue',
      agentId: 'triage-agent',
      repository: 'Codertocat/Hello-World',
    });
    expect(sub.status).toBe(201);
    const [hook] = github.hooksOf('repos/Codertocat/Hello-World');
    expect(hook?.config.url).toBe(`${baseUrl}/webhooks/github/${sub.body.endpointId}`);

    const ping = await github.deliver(hook!, 'ping', JSON.stringify(examplePayload('ping')), 'ping-guid');
    expect(ping.status).toBe(200);
    expect((await api('GET', `/subscriptions/${sub.body.id}`)).status).toBe(200);

    const payload = examplePayload('issues', 'opened');
    const delivered = await github.deliver(hook!, 'issues', JSON.stringify(payload), 'e2e-guid-1');
    expect(delivered.status).toBe(202);
    // The code host redelivers the same delivery: answered 2xx, nothing more sent.
    expect((await github.deliver(hook!, 'issues', JSON.stringify(payload), 'e2e-guid-1')).status).toBe(200);

    expect(await drain()).toBe(1);
    expect(runtime.requests).toHaveLength(1);
    const req = runtime.requests[0]!;
    expect(FakeAgentRuntime.signatureValid(req, testSigningSecret)).toBe(true);
    const event = JSON.parse(req.body);
    expect(event).toMatchObject({
      trigger: 'github.new_issue',
      subscriptionId: sub.body.id,
      agentId: 'triage-agent',
      connectionId: connection.body.id,
      deliveryId: 'e2e-guid-1',
    });
    expect(event.id).toMatch(/^evt_/);
    expect(typeof event.occurredAt).toBe('string');
    expect(event.event).toBeTypeOf('object');

    expect(await drain()).toBe(0);
    expect(runtime.requests).toHaveLength(1);

    const removed = await api('DELETE', `/connections/${connection.body.id}`);
    expect(removed.body).toMatchObject({ deleted: true, hooksDeleted: 1 });
    expect(github.hooksOf('repos/Codertocat/Hello-World')).toHaveLength(0);
  });
});
