import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { routes as intakeRoutes } from '../../functions/webhook-intake/routes';
import { providerWebhooks } from '../../shared/wiring/provider-intake';
import { secretNames, type Subscription } from '../../shared/domain/model';
import { fromLambdaEvent } from '../../shared/http/lambda-http';
import { createRouter } from '../../shared/http/router';
import type { HttpRequest } from '../../shared/http/types';
import type { IntakeOptions } from '../../shared/intake/receive-delivery';
import type { OutgoingMessage, Queue } from '../../shared/ports';
import { keys } from '../../shared/store/table-design';
import { EndpointRepo, endpointIdFor } from '../../shared/store/endpoint-repo';
import { SubscriptionRepo } from '../../shared/store/subscription-repo';
import { stopTestDynamo } from '../helpers/dynamo';
import { deliveryRequest, examplePayload, sign } from '../helpers/signed-delivery';
import { testContext, testPlatformKey, type TestContext } from '../helpers/test-context';

afterAll(stopTestDynamo);

const repository = 'Codertocat/Hello-World';
const opened = JSON.stringify(examplePayload('issues', 'opened'));
const open: TestContext[] = [];
afterEach(() => {
  for (const t of open.splice(0)) t.close();
});

async function tenant(t: TestContext, repo: string, secret: string, login = 'octocat') {
  const connection = await t.connect({ accountLogin: login });
  const target = { kind: 'repository' as const, repository: repo };
  const endpointId = endpointIdFor(connection.id, target);
  await t.secrets.put(secretNames.endpointSecret(endpointId), secret);
  await new EndpointRepo(t.ctx.store).create({
    id: endpointId,
    connectionId: connection.id,
    target,
    hookId: 7,
    events: ['issues'],
    createdAt: new Date().toISOString(),
  });
  const sub: Subscription = {
    id: SubscriptionRepo.newId(),
    connectionId: connection.id,
    trigger: 'github.new_issue',
    agentId: `agent-of-${login}`,
    repository: repo,
    filters: {},
    delivery: 'webhook',
    endpointId,
    createdAt: new Date().toISOString(),
  };
  await new SubscriptionRepo(t.ctx.store).create(sub);
  return { connection, endpointId, sub, secret };
}

async function setup(options: IntakeOptions = {}, queue?: (real: Queue) => Queue) {
  const t = await testContext();
  open.push(t);
  if (queue) t.ctx.queue = queue(t.ctx.queue);
  const a = await tenant(t, repository, 'secret-of-tenant-a-0123456789abcdef');
  const router = createRouter(intakeRoutes(t.ctx, providerWebhooks, options), { platformApiKey: async () => testPlatformKey });
  const send = async (req: HttpRequest) => {
    const res = await router(req);
    return { status: res.status, body: JSON.parse(String(res.body)) as Record<string, unknown> };
  };
  return { t, a, send, queued: () => t.queues.queue.size() };
}

describe('webhook intake', () => {
  it('accepts a signed real delivery and enqueues one trigger event for the subscription', async () => {
    const { t, a, send, queued } = await setup();
    const res = await send(deliveryRequest({ endpointId: a.endpointId, secret: a.secret, event: 'issues', body: opened, guid: 'guid-1' }));
    expect(res.status).toBe(202);
    expect(queued()).toBe(1);
    const [msg] = await t.receiveAll();
    const event = JSON.parse(msg!.body);
    expect(event).toMatchObject({
      trigger: 'github.new_issue',
      subscriptionId: a.sub.id,
      agentId: a.sub.agentId,
      connectionId: a.connection.id,
      deliveryId: 'guid-1',
    });
    expect(event.id).toMatch(/^evt_/);
    expect(t.metrics.counts.get('webhook_accepted')).toBe(1);
  });

  it("passes the code host's documented signature vector and fails it after one changed byte", async () => {
    const { t, send } = await setup();
    const c = await tenant(t, 'o/vector', "It's a Secret to Everybody");
    const headers = { 'x-hub-signature-256': 'sha256=757107ea0eb2509fc211221cce984b8a37570b6d7586c22c46f4379c8b043e17' };
    const good = await send(
      deliveryRequest({ endpointId: c.endpointId, secret: 'unused', event: 'issues', body: 'Hello, World!', headers }),
    );
    // Signature accepted; the body is then refused for not being JSON (400, not 401).
    expect(good.status).toBe(400);
    const bad = await send(
      deliveryRequest({ endpointId: c.endpointId, secret: 'unused', event: 'issues', body: 'Hello, World?', headers }),
    );
    expect(bad.status).toBe(401);
  });

  it('refuses a signed body that was re-serialized (key order, whitespace) and queues nothing', async () => {
    const { a, send, queued } = await setup();
    const req = deliveryRequest({ endpointId: a.endpointId, secret: a.secret, event: 'issues', body: opened });
    const reordered = JSON.stringify(JSON.parse(opened), null, 2);
    const res = await send({ ...req, body: Buffer.from(reordered) });
    expect(res.status).toBe(401);
    expect(queued()).toBe(0);
  });

  it('accepts a unicode body (emoji, U+2028, escapes) signed over its bytes, once', async () => {
    const { a, send, queued } = await setup();
    const payload = examplePayload('issues', 'opened') as { issue: { title: string; body: string } };
    payload.issue.title = 'Ship it 🚀 — naïve';
    payload.issue.body = 'line\u2028separator and an escaped \\u00e9';
    const body = JSON.stringify(payload).replace('naïve', 'na\\u00efve');
    const req = deliveryRequest({ endpointId: a.endpointId, secret: a.secret, event: 'issues', body, guid: 'uni-1' });
    expect((await send(req)).status).toBe(202);
    expect((await send(req)).status).toBe(200);
    expect(queued()).toBe(1);
  });

  it('decodes a base64 Lambda body before checking the signature', async () => {
    const { a, send, queued } = await setup();
    const event = {
      version: '2.0',
      rawPath: `/webhooks/github/${a.endpointId}`,
      rawQueryString: '',
      headers: {
        'X-GitHub-Event': 'issues',
        'X-GitHub-Delivery': 'b64-1',
        'X-Hub-Signature-256': sign(a.secret, opened),
        'Content-Type': 'application/json',
      },
      requestContext: { http: { method: 'POST' } },
      body: Buffer.from(opened, 'utf8').toString('base64'),
      isBase64Encoded: true,
    } as unknown as APIGatewayProxyEventV2;
    expect((await send(fromLambdaEvent(event))).status).toBe(202);
    expect(queued()).toBe(1);
  });

  const good = (secret: string) => sign(secret, opened);
  const badSignatures: Array<[string, (s: string) => string | undefined]> = [
    ['missing', () => undefined],
    ['sha1-only', () => 'sha1=0a4d55a8d778e5022fab701977c5d840bbc486d0'],
    ['truncated', (s) => good(s).slice(0, 40)],
    ['upper-case', (s) => `sha256=${good(s).slice(7).toUpperCase()}`],
    ['non-hex', () => `sha256=${'g'.repeat(64)}`],
    ['doubled', (s) => `${good(s)},${good(s)}`],
    ['signed with another secret', () => sign('not-the-secret', opened)],
  ];
  for (const [name, make] of badSignatures) {
    it(`answers 401 (never 500) to a ${name} signature and queues nothing`, async () => {
      const { a, send, queued } = await setup();
      const res = await send(
        deliveryRequest({
          endpointId: a.endpointId,
          secret: a.secret,
          event: 'issues',
          body: opened,
          headers: { 'x-hub-signature-256': make(a.secret) },
        }),
      );
      expect(res.status).toBe(401);
      expect(res.body).toMatchObject({ error: { code: 'invalid_signature' } });
      expect(queued()).toBe(0);
    });
  }

  it('names a missing required header with 400', async () => {
    const { a, send } = await setup();
    const noEvent = await send(
      deliveryRequest({
        endpointId: a.endpointId,
        secret: a.secret,
        event: 'issues',
        body: opened,
        headers: { 'x-github-event': undefined },
      }),
    );
    expect(noEvent.status).toBe(400);
    expect(JSON.stringify(noEvent.body)).toContain('X-GitHub-Event');
    const noGuid = await send(
      deliveryRequest({
        endpointId: a.endpointId,
        secret: a.secret,
        event: 'issues',
        body: opened,
        headers: { 'x-github-delivery': undefined },
      }),
    );
    expect(noGuid.status).toBe(400);
    expect(JSON.stringify(noGuid.body)).toContain('X-GitHub-Delivery');
  });

  it('fails closed: unknown endpoint, malformed endpoint id, endpoint without a stored secret', async () => {
    const { t, a, send, queued } = await setup();
    const unknown = endpointIdFor('conn_nobody', { kind: 'repository', repository: repository });
    expect((await send(deliveryRequest({ endpointId: unknown, secret: a.secret, event: 'issues', body: opened }))).status).toBe(404);
    expect((await send(deliveryRequest({ endpointId: 'not-an-endpoint', secret: a.secret, event: 'issues', body: opened }))).status).toBe(
      404,
    );
    await t.secrets.delete(secretNames.endpointSecret(a.endpointId));
    expect((await send(deliveryRequest({ endpointId: a.endpointId, secret: a.secret, event: 'issues', body: opened }))).status).toBe(401);
    expect(queued()).toBe(0);
  });

  it("keeps tenants apart: a body naming another tenant's repository, signed with this endpoint's secret, reaches nobody", async () => {
    const { t, a, send, queued } = await setup();
    const b = await tenant(t, 'victim/private-repo', 'secret-of-tenant-b-0123456789abcdef', 'victim');
    const payload = examplePayload('issues', 'opened') as { repository: { full_name: string; name: string; owner: { login: string } } };
    payload.repository.full_name = 'victim/private-repo';
    payload.repository.name = 'private-repo';
    payload.repository.owner.login = 'victim';
    const body = JSON.stringify(payload);
    // Signed with A's secret, posted to A's endpoint: B's subscription must not hear of it.
    expect((await send(deliveryRequest({ endpointId: a.endpointId, secret: a.secret, event: 'issues', body }))).status).toBeLessThan(300);
    // Signed with A's secret, posted to B's endpoint: refused.
    expect((await send(deliveryRequest({ endpointId: b.endpointId, secret: a.secret, event: 'issues', body }))).status).toBe(401);
    expect(queued()).toBe(0);
  });

  it('fans out once for the same delivery sent twice in a row and ten times at once', async () => {
    const { a, send, queued } = await setup();
    const req = deliveryRequest({ endpointId: a.endpointId, secret: a.secret, event: 'issues', body: opened, guid: 'dup-1' });
    expect((await send(req)).status).toBe(202);
    const again = await send(req);
    expect(again).toMatchObject({ status: 200, body: { duplicate: true } });
    // Another delivery has other bytes (the intake dedupes on the signed body too).
    const parallel = deliveryRequest({
      endpointId: a.endpointId,
      secret: a.secret,
      event: 'issues',
      body: JSON.stringify({ ...JSON.parse(opened), dup: 2 }),
      guid: 'dup-2',
    });
    const answers = await Promise.all(Array.from({ length: 10 }, () => send(parallel)));
    for (const r of answers) expect(r.status).toBeLessThan(300);
    expect(answers.filter((r) => r.status === 202)).toHaveLength(1);
    expect(queued()).toBe(2);
  });

  it('answers 5xx when the enqueue fails, then processes the redelivery of the same delivery id', async () => {
    let failNext = true;
    const { t, a, send, queued } = await setup({}, (real) => ({
      sendBatch: async (m: OutgoingMessage[]) => {
        if (failNext) {
          failNext = false;
          throw new Error('queue unavailable');
        }
        return real.sendBatch(m);
      },
    }));
    const req = deliveryRequest({ endpointId: a.endpointId, secret: a.secret, event: 'issues', body: opened, guid: 'retry-1' });
    const first = await send(req);
    expect(first.status).toBe(503);
    expect(await t.ctx.store.get(keys.deliveryClaim(a.endpointId, 'retry-1'))).toBeUndefined();
    expect((await send(req)).status).toBe(202);
    expect(queued()).toBe(1);
  });

  it('answers 503 before its deadline when the queue hangs, and releases the claim', async () => {
    let hang = true;
    const { t, a, send, queued } = await setup({ deadlineMs: 200 }, (real) => ({
      sendBatch: (m: OutgoingMessage[]) => (hang ? new Promise<void>(() => undefined) : real.sendBatch(m)),
    }));
    const req = deliveryRequest({ endpointId: a.endpointId, secret: a.secret, event: 'issues', body: opened, guid: 'slow-1' });
    const res = await send(req);
    expect(res.status).toBe(503);
    expect(await t.ctx.store.get(keys.deliveryClaim(a.endpointId, 'slow-1'))).toBeUndefined();
    hang = false;
    expect((await send(req)).status).toBe(202);
    expect(queued()).toBe(1);
  });

  it('maps a body whose X-GitHub-Event header lies about its type to nothing', async () => {
    const { a, send, queued } = await setup();
    const star = JSON.stringify(examplePayload('star', 'created'));
    const res = await send(deliveryRequest({ endpointId: a.endpointId, secret: a.secret, event: 'issues', body: star }));
    expect(res.status).toBe(200);
    expect(queued()).toBe(0);
  });

  it('answers ping with 200, marks the endpoint verified and fans out nothing', async () => {
    const { t, a, send, queued } = await setup();
    const res = await send(
      deliveryRequest({ endpointId: a.endpointId, secret: a.secret, event: 'ping', body: JSON.stringify(examplePayload('ping')) }),
    );
    expect(res.status).toBe(200);
    expect(queued()).toBe(0);
    const endpoint = await new EndpointRepo(t.ctx.store).get(a.endpointId);
    expect(endpoint?.verifiedAt).toBeDefined();
    expect(endpoint?.hookId).toBe(7);
  });

  it('answers 2xx to unknown events and actions and drops them', async () => {
    const { a, send, queued } = await setup();
    const unknown = await send(
      deliveryRequest({ endpointId: a.endpointId, secret: a.secret, event: 'made_up_event', body: '{"action":"whatever"}' }),
    );
    expect(unknown.status).toBe(200);
    const closed = await send(
      deliveryRequest({
        endpointId: a.endpointId,
        secret: a.secret,
        event: 'issues',
        body: JSON.stringify(examplePayload('issues', 'pinned')),
      }),
    );
    expect(closed.status).toBeLessThan(300);
    expect(queued()).toBe(0);
  });

  it('stores a body too big for a queue message aside and enqueues a pointer to it', async () => {
    const { t, a, send } = await setup();
    const payload = examplePayload('issues', 'opened') as { issue: { body: string } };
    payload.issue.body = 'x'.repeat(300 * 1024);
    const res = await send(
      deliveryRequest({ endpointId: a.endpointId, secret: a.secret, event: 'issues', body: JSON.stringify(payload), guid: 'big-1' }),
    );
    expect(res.status).toBe(202);
    const [msg] = await t.receiveAll();
    const pointer = JSON.parse(msg!.body) as { blobKey: string };
    expect(Object.keys(pointer)).toEqual(['blobKey']);
    const stored = JSON.parse((await t.blobs.get(pointer.blobKey))!.toString('utf8'));
    expect(stored.event.issue.body).toHaveLength(300 * 1024);
  });
});
