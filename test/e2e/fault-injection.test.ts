import { randomUUID } from 'node:crypto';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { openLocalQueues } from '../../shared/adapters/local/local-queues';
import { embeddedDynamoClientConfig, startEmbeddedDynamo } from '../../shared/adapters/local/embedded-dynamo';
import { DynamoStore } from '../../shared/adapters/aws/dynamo-store';
import { loadConfig } from '../../shared/config/config';
import { dispatchBatch } from '../../shared/dispatch/dispatch-batch';
import { providerWork } from '../../shared/wiring/provider-work';
import { inProgressLeaseSeconds } from '../../shared/dispatch/dispatch-claim';
import { createJsonLogger } from '../../shared/observability/logger';
import { InMemoryMetrics } from '../../shared/observability/metrics';
import { keys } from '../../shared/store/table-design';
import { buildLocalContext } from '../../shared/wiring/local-context';
import { issueOpenedBody, seedTenant, signedShot, type Tenant } from '../helpers/seed';
import { FakeGitHub } from '../helpers/fake-github-server';
import { startFakeHttp, type FakeServer } from '../helpers/fake-http';
import { FaultSwitch, faultyQueue, faultyStore } from '../helpers/faulty';
import { startLocalProcess } from '../helpers/local-process';
import { platformKey, signingSecret, startRuntime, subscribeOverApi, until, type TestRuntime } from '../helpers/runtime-support';

/**
 * Faults injected into the local runtime while deliveries flow: the store or the queue
 * failing for a while, the agent runtime answering 5xx, the process killed mid-batch.
 * What must hold: nothing acknowledged to the code host is lost, nothing is delivered twice
 * to the agent runtime, and the dead-letter queue holds only what really failed.
 */

/** A fake agent runtime that can fail or hold requests, and counts the events it accepted (answered 2xx). */
class Agent {
  mode: 'ok' | 'fail' | 'hold' = 'ok';
  readonly accepted = new Map<string, number>();
  attempts = 0;
  private constructor(readonly server: FakeServer) {}
  static async start(): Promise<Agent> {
    let self: Agent | undefined;
    const server = await startFakeHttp(async (req) => {
      const a = self!;
      a.attempts++;
      if (a.mode === 'fail') return { status: 503, body: { error: 'down' } };
      if (a.mode === 'hold') return new Promise(() => undefined);
      const e = req.json as { id: string };
      a.accepted.set(e.id, (a.accepted.get(e.id) ?? 0) + 1);
      return { status: 200, body: { ok: true } };
    });
    self = new Agent(server);
    return self;
  }
  get url() {
    return `${this.server.url}/trigger-events`;
  }
  /** Accepted events per delivery id (the event body carries it). */
  deliveries(): Map<string, number> {
    const out = new Map<string, number>();
    for (const r of this.server.requests) {
      const e = r.json as { id: string; deliveryId: string } | undefined;
      if (e && this.accepted.has(e.id)) out.set(e.deliveryId, this.accepted.get(e.id)!);
    }
    return out;
  }
}

async function post(rt: TestRuntime, tenant: Tenant, guid: string) {
  const shot = signedShot(tenant, issueOpenedBody(), guid);
  const res = await fetch(`${rt.url}${shot.path}`, { method: 'POST', headers: shot.headers, body: shot.body });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

let agent: Agent;
const running: TestRuntime[] = [];
beforeAll(async () => {
  agent = await Agent.start();
});
afterEach(async () => {
  for (const rt of running.splice(0)) await rt.dispose();
  agent.mode = 'ok';
});
afterAll(async () => {
  await agent.server.close();
});

async function runtimeWithTenant() {
  const rt = await startRuntime({ AGENT_RUNTIME_URL: agent.url });
  running.push(rt);
  const tenant = await seedTenant(rt.ctx, 1);
  // One delivery first, so the container's caches are warm and the outage hits the write path.
  const warm = `warm-${randomUUID()}`;
  expect((await post(rt, tenant, warm)).status).toBe(202);
  await until('the warm-up event', () => agent.deliveries().get(warm) === 1);
  return { rt, tenant };
}

describe('fault injection on the local runtime', () => {
  it('store down: deliveries answered 5xx; after it recovers the redelivery of the same GUID is processed once', async () => {
    const { rt, tenant } = await runtimeWithTenant();
    const sw = new FaultSwitch();
    rt.ctx.store = faultyStore(rt.ctx.store, sw);
    sw.fail();
    const guid = `store-down-${randomUUID()}`;
    expect((await post(rt, tenant, guid)).status).toBe(503);
    expect((await post(rt, tenant, guid)).status).toBe(503);
    expect(sw.faults).toBeGreaterThan(0);
    sw.heal();
    expect(await rt.ctx.store.get(keys.deliveryClaim(tenant.endpointId, guid))).toBeUndefined();
    expect((await post(rt, tenant, guid)).status).toBe(202);
    expect((await post(rt, tenant, guid)).body).toMatchObject({ duplicate: true });
    await until('the redelivered event', () => agent.deliveries().get(guid) === 1);
    expect(rt.queues.dlq.size()).toBe(0);
  });

  it('queue down: 5xx with the claim released, then the redelivery is processed once', async () => {
    const { rt, tenant } = await runtimeWithTenant();
    const sw = new FaultSwitch();
    rt.ctx.queue = faultyQueue(rt.ctx.queue, sw);
    sw.fail();
    const guid = `queue-down-${randomUUID()}`;
    expect((await post(rt, tenant, guid)).status).toBe(503);
    expect(await rt.ctx.store.get(keys.deliveryClaim(tenant.endpointId, guid))).toBeUndefined();
    sw.heal();
    expect((await post(rt, tenant, guid)).status).toBe(202);
    await until('the redelivered event', () => agent.deliveries().get(guid) === 1);
    expect(rt.queues.dlq.size()).toBe(0);
  });

  it('agent runtime answering 5xx for a while: every event delivered exactly once after it recovers; only the poison message is dead-lettered', async () => {
    const { rt, tenant } = await runtimeWithTenant();
    agent.mode = 'fail';
    const before = agent.attempts;
    const guids = Array.from({ length: 5 }, (_, i) => `outage-${i}-${randomUUID()}`);
    for (const g of guids) expect((await post(rt, tenant, g)).status).toBe(202);
    await rt.queues.queue.sendBatch([{ id: 'poison', body: '{"not":"a trigger event"' }]);
    // Every event tried (and refused) at least once: the outage is real, then it ends.
    await until('a first refused try of each event', () => agent.attempts - before >= guids.length);
    agent.mode = 'ok';
    // Retries come with the dispatcher's backoff (5 s for the first retry).
    await until('every event after the outage', () => guids.every((g) => agent.deliveries().get(g) === 1), 20_000);
    await until('the poison message in the DLQ', () => rt.queues.dlq.size() === 1);
    const dead = await rt.queues.deadLetters.list(10);
    expect(dead.map((d) => d.body)).toEqual(['{"not":"a trigger event"']);
    expect([...agent.accepted.values()].every((n) => n === 1)).toBe(true);
    // A batch deletes its messages after its last event returns; with several batches in
    // flight the last deletes may trail the deliveries by a moment.
    await until('the queue emptied', () => rt.queues.queue.size() === 0);
    expect([...agent.accepted.values()].every((n) => n === 1)).toBe(true);
  }, 30_000);
});

describe('process killed mid-batch', () => {
  const token = 'ghp_killTestToken00000000000000000000000000';
  let github: FakeGitHub;
  beforeAll(async () => {
    github = await FakeGitHub.start();
    github.addUser(token, 'Codertocat');
  });
  afterAll(async () => {
    await github.close();
  });

  it('loses nothing acknowledged and delivers nothing twice: in-flight messages and claims are leases that expire and are retried', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'kill-'));
    const env = {
      DATA_DIR: dataDir,
      PORT: '0',
      GITHUB_API_URL: github.url,
      AGENT_RUNTIME_URL: agent.url,
      PLATFORM_API_KEY: platformKey,
      DISPATCH_SIGNING_SECRET: signingSecret,
      POLL_INTERVAL_SECONDS: '3600',
    };
    const first = await startLocalProcess(env);
    const { hook, endpointId } = await subscribeOverApi(first.url, github, token);
    agent.mode = 'hold';
    const before = agent.attempts;
    const body = issueOpenedBody().toString('utf8');
    const guids = Array.from({ length: 15 }, (_, i) => `kill-${i}-${randomUUID()}`);
    // Each delivery has its own bytes, as real ones do (the intake dedupes on the signed body too).
    const bodyOf = (g: string) => signedShot({ endpointId, secret: '' }, Buffer.from(body), g).body.toString('utf8');
    for (const g of guids) expect((await github.deliver(hook, 'issues', bodyOf(g), g)).status).toBe(202);
    // The consumer has a batch in flight (requests held at the agent runtime): kill it now.
    await until('a batch in flight', () => agent.attempts - before >= 1);
    expect(await first.stop('SIGKILL')).toBeNull();
    agent.mode = 'ok';

    // Reopen the same data dir as the restarted runtime would, on a clock past the visibility
    // timeout and the claim lease (the local runtime's 60 s), and run the consumer until empty.
    const later = { now: () => Date.now() + (inProgressLeaseSeconds + 5) * 1000 };
    const dynamo = await startEmbeddedDynamo({ path: join(dataDir, 'dynamodb') });
    const client = new DynamoDBClient(embeddedDynamoClientConfig(dynamo.endpoint));
    const config = loadConfig({ ...env });
    const store = new DynamoStore(config.tableName, client, later);
    const queues = openLocalQueues({ dir: join(dataDir, 'queues'), name: 'dispatch', clock: later });
    try {
      // Every acknowledged delivery is still there: a claim taken, its event queued or in flight.
      for (const g of guids) expect(await store.get(keys.deliveryClaim(endpointId, g))).toBeDefined();
      expect(queues.queue.size()).toBe(guids.length);
      // The events the dead process was posting hold an in-progress claim: a lease, not a lock.
      const held = agent.server.requests.slice(-(agent.attempts - before)).map((r) => (r.json as { id: string }).id);
      const now = new DynamoStore(config.tableName, client, { now: () => Date.now() });
      for (const id of held) {
        const claim = await now.get(keys.dispatchClaim(id));
        expect(claim?.state).toBe('in_progress');
        expect(Number(claim?.ttl)).toBeLessThanOrEqual(Math.ceil(Date.now() / 1000) + inProgressLeaseSeconds);
        expect(await store.get(keys.dispatchClaim(id))).toBeUndefined();
      }
      const ctx = buildLocalContext({
        config,
        store,
        queue: queues.queue,
        dataDir,
        logger: createJsonLogger({ level: 'SILENT' }),
        metrics: new InMemoryMetrics(),
      });
      ctx.clock = later;
      for (let round = 0; round < 10 && queues.queue.size() > 0; round++) {
        const messages = await queues.queue.receive(10, 60);
        const { failedMessageIds } = await dispatchBatch(ctx, messages, queues.queue, { work: providerWork });
        for (const m of messages) if (!failedMessageIds.includes(m.messageId)) await queues.queue.delete(m.receiptHandle);
      }
      expect(queues.queue.size()).toBe(0);
      expect(queues.dlq.size()).toBe(0);
    } finally {
      queues.close();
      client.destroy();
      await dynamo.close();
    }
    const delivered = agent.deliveries();
    for (const g of guids) expect(delivered.get(g), g).toBe(1);

    // The real runtime starts again on that data dir and has nothing left to send.
    const second = await startLocalProcess(env);
    try {
      expect((await fetch(`${second.url}/healthz`)).status).toBe(200);
      // The code host redelivers one of them (to the new port): a duplicate, answered 2xx, nothing sent.
      const again = signedShot({ endpointId, secret: hook.config.secret ?? '' }, Buffer.from(body), guids[0]!);
      const res = await fetch(`${second.url}${again.path}`, { method: 'POST', headers: again.headers, body: again.body });
      expect(res.status).toBe(200);
    } finally {
      expect(await second.stop()).toBe(0);
    }
    for (const g of guids) expect(agent.deliveries().get(g), g).toBe(1);
    rmSync(dataDir, { recursive: true, force: true });
  }, 60_000);
});
