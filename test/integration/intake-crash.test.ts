import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import { createHash, randomUUID } from 'node:crypto';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { issueOpenedBody, seedTenant, signedShot, type Tenant } from '../helpers/seed';
import { routes as intakeRoutes } from '../../functions/webhook-intake/routes';
import { providerWebhooks } from '../../shared/wiring/provider-intake';
import type { AppContext } from '../../shared/ports/app-context';
import { fromLambdaEvent, toLambdaResult } from '../../shared/http/lambda-http';
import { createRouter } from '../../shared/http/router';
import { inProgressLeaseSeconds } from '../../shared/dispatch/dispatch-claim';
import { deliveryLeaseSeconds } from '../../shared/intake/delivery-claims';
import type { IntakeOptions } from '../../shared/intake/receive-delivery';
import type { OutgoingMessage, Queue } from '../../shared/ports';
import { keys } from '../../shared/store/table-design';
import { consumerPass } from '../helpers/consumer-pass';
import { stopTestDynamo } from '../helpers/dynamo';
import { FakeAgentRuntime } from '../helpers/fake-agent-runtime';
import { FaultSwitch, faultyStore } from '../helpers/faulty';
import { testContext, type TestContext } from '../helpers/test-context';

/**
 * Crash safety (docs/reliability.md, "Crashes: a process killed at any point") on the Lambda path: an intake invocation that dies between its claims and the
 * end of its enqueue (a function timeout, a recycled container) must not turn the
 * redelivery of that delivery into a "duplicate". Its claims are leases on the injected
 * clock: while one is live a second attempt is answered 5xx (retryable); once it has
 * passed the redelivery takes over, and the agent runtime hears of the delivery once.
 * With replays (docs/security.md, section 5): the signed body is claimed too, so the same bytes under
 * a new delivery id fan out once.
 */
let agent: FakeAgentRuntime;
beforeAll(async () => {
  agent = await FakeAgentRuntime.start();
});
afterAll(async () => {
  await agent.close();
  await stopTestDynamo();
});
const open: TestContext[] = [];
afterEach(() => {
  for (const t of open.splice(0)) t.close();
  agent.requests.length = 0;
});

/** The API Gateway / Function URL event the intake function receives. */
function lambdaEvent(shot: { path: string; headers: Record<string, string>; body: Buffer }): APIGatewayProxyEventV2 {
  return {
    version: '2.0',
    rawPath: shot.path,
    rawQueryString: '',
    headers: shot.headers,
    requestContext: { http: { method: 'POST' } },
    body: shot.body.toString('base64'),
    isBase64Encoded: true,
  } as unknown as APIGatewayProxyEventV2;
}

/** One "container" of the intake function: the handler's router over `ctx`. */
function invoker(ctx: AppContext, options: IntakeOptions = {}) {
  const router = createRouter(intakeRoutes(ctx, providerWebhooks, options), { platformApiKey: ctx.platformApiKey });
  return async (shot: { path: string; headers: Record<string, string>; body: Buffer }) => {
    const result = toLambdaResult(await router(fromLambdaEvent(lambdaEvent(shot))));
    return { status: result.statusCode ?? 0, body: JSON.parse(String(result.body)) as Record<string, unknown> };
  };
}

/**
 * A container that dies at `where`: from that moment every call it makes to the store and
 * the queue never returns (so it releases nothing, marks nothing), as when Lambda stops
 * it. Resolves `died` when it gets there.
 */
function dyingContainer(t: TestContext, where: 'at-enqueue' | 'after-enqueue') {
  const sw = new FaultSwitch();
  let died!: () => void;
  const dead = new Promise<void>((r) => (died = r));
  const queue: Queue = {
    sendBatch: async (m: OutgoingMessage[]) => {
      if (where === 'at-enqueue') {
        sw.hang();
        died();
        return new Promise<void>(() => undefined);
      }
      await t.ctx.queue.sendBatch(m);
      sw.hang();
      died();
    },
  };
  const ctx: AppContext = { ...t.ctx, store: faultyStore(t.ctx.store, sw), queue };
  const invoke = invoker(ctx);
  return {
    /** Invokes it with `shot` and resolves once it has died there (fails if it answers first). */
    dieDuring: (shot: { path: string; headers: Record<string, string>; body: Buffer }) =>
      Promise.race([dead, invoke(shot).then((a) => Promise.reject(new Error(`answered ${a.status} before dying`)))]),
  };
}

async function setup() {
  const t = await testContext({ AGENT_RUNTIME_URL: agent.url });
  open.push(t);
  const tenant = await seedTenant(t.ctx, 1);
  // A live container of the function, sharing the table and queue with the dying one.
  const invoke = invoker(t.ctx, { busyWaitMs: 50 });
  return { t, tenant, invoke };
}

/** Runs the dispatch consumer until the queue is empty; returns how often the agent runtime got each event id. */
async function drain(t: TestContext): Promise<Map<string, number>> {
  for (let i = 0; i < 10 && t.queues.queue.size() > 0; i++) {
    await consumerPass(t.ctx, t.queues.queue);
    // A copy that met its twin in progress is postponed past the dispatch lease: move time on.
    t.clock.advance((inProgressLeaseSeconds + 1) * 1000);
  }
  expect(t.queues.queue.size()).toBe(0);
  const seen = new Map<string, number>();
  for (const e of agent.events()) seen.set(String(e.id), (seen.get(String(e.id)) ?? 0) + 1);
  return seen;
}

function shotOf(tenant: Tenant, guid: string = randomUUID()) {
  return signedShot(tenant, issueOpenedBody(), guid);
}

describe('an intake invocation that dies mid-delivery (Lambda path)', () => {
  it('died between the claim and the enqueue: the redelivery is 5xx while the lease holds, then processed once the lease has passed', async () => {
    const { t, tenant, invoke } = await setup();
    const shot = shotOf(tenant);
    const dying = dyingContainer(t, 'at-enqueue');
    await dying.dieDuring(shot);
    // The attempt holds the signed body's claim; the id's row is written only with the done marks.
    const bodyHash = createHash('sha256').update(shot.body).digest('hex');
    const claim = await t.ctx.store.get(keys.deliveryBodyClaim(tenant.endpointId, bodyHash));
    expect(claim?.state).toBe('in_progress');
    expect(await t.ctx.store.get(keys.deliveryClaim(tenant.endpointId, shot.headers['x-github-delivery']!))).toBeUndefined();

    // The lease has not passed: a retryable 5xx, never "duplicate".
    const early = await invoke(shot);
    expect(early.status).toBe(503);
    expect(early.body).not.toHaveProperty('duplicate');
    expect(t.queues.queue.size()).toBe(0);

    t.clock.advance((deliveryLeaseSeconds + 1) * 1000);
    const again = await invoke(shot);
    expect(again.status).toBe(202);
    expect(again.body).toMatchObject({ accepted: 1 });
    // Done now: a later redelivery is the duplicate.
    expect((await invoke(shot)).body).toMatchObject({ duplicate: true });
    const seen = await drain(t);
    expect([...seen.values()]).toEqual([1]);
  });

  it('died after the enqueue, before the delivery was marked done: the take-over queues the same event id again, and the agent runtime hears of it once', async () => {
    const { t, tenant, invoke } = await setup();
    const shot = shotOf(tenant);
    const dying = dyingContainer(t, 'after-enqueue');
    await dying.dieDuring(shot);
    expect(t.queues.queue.size()).toBe(1);
    expect((await invoke(shot)).status).toBe(503);

    t.clock.advance((deliveryLeaseSeconds + 1) * 1000);
    expect((await invoke(shot)).status).toBe(202);
    const bodies = (await t.queues.queue.receive(10, 0)).map((m) => JSON.parse(m.body) as { id: string });
    expect(bodies).toHaveLength(2);
    expect(bodies[0]!.id).toBe(bodies[1]!.id);
    const seen = await drain(t);
    expect([...seen.values()]).toEqual([1]);
  });
});

describe('the signed body is what is claimed (replays)', () => {
  it('the same signed body under a new delivery id fans out once, and leaves no claim of the new id', async () => {
    const { t, tenant, invoke } = await setup();
    const shot = shotOf(tenant, 'original-guid');
    expect((await invoke(shot)).status).toBe(202);
    const replay = { ...shot, headers: { ...shot.headers, 'x-github-delivery': 'replayed-guid' } };
    const answers = await Promise.all([
      invoke(replay),
      invoke({ ...replay, headers: { ...replay.headers, 'x-github-delivery': 'replayed-guid-2' } }),
    ]);
    for (const a of answers) expect(a).toMatchObject({ status: 200, body: { duplicate: true } });
    expect(await t.ctx.store.get(keys.deliveryClaim(tenant.endpointId, 'replayed-guid'))).toBeUndefined();
    expect(t.metrics.counts.get('webhook_replay')).toBe(2);
    // Even once every lease has long passed.
    t.clock.advance(24 * 3600 * 1000);
    expect((await invoke(replay)).body).toMatchObject({ duplicate: true });
    const seen = await drain(t);
    expect([...seen.values()]).toEqual([1]);
    expect(agent.events()[0]).toMatchObject({ deliveryId: 'original-guid' });
  });

  it("the code host's redelivery (same id, same bytes) of a delivery whose attempt died is still recovered; a replay meanwhile is not a second fan-out", async () => {
    const { t, tenant, invoke } = await setup();
    const shot = shotOf(tenant, 'unfinished-guid');
    const dying = dyingContainer(t, 'at-enqueue');
    await dying.dieDuring(shot);
    const replay = { ...shot, headers: { ...shot.headers, 'x-github-delivery': 'replay-meanwhile' } };
    // The body's claim is held by the dead attempt: retryable, not accepted.
    expect((await invoke(replay)).status).toBe(503);

    t.clock.advance((deliveryLeaseSeconds + 1) * 1000);
    expect((await invoke(shot)).status).toBe(202);
    expect((await invoke(replay)).body).toMatchObject({ duplicate: true });
    expect((await invoke(shot)).body).toMatchObject({ duplicate: true });
    const seen = await drain(t);
    expect([...seen.values()]).toEqual([1]);
    expect(agent.events()[0]).toMatchObject({ deliveryId: 'unfinished-guid' });
  });
});
