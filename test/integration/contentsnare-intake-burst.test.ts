import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, expect, it } from 'vitest';
import { openLocalQueues, type LocalQueues } from '../../shared/adapters/local/local-queues';
import { loadConfig } from '../../shared/config/config';
import { dispatchMessage } from '../../shared/dispatch/dispatch-batch';
import { providerWork } from '../../shared/wiring/provider-work';
import { fromQueueMessage } from '../../shared/dispatch/event-message';
import { maxReceiveCount } from '../../shared/dispatch/redrive-policy';
import { isSnareReadBack } from '../../shared/providers/contentsnare/dispatch/read-back-job';
import type { TriggerEvent } from '../../shared/domain/model';
import { receiveSnareDelivery } from '../../shared/providers/contentsnare/intake/snare-source';
import { InMemoryMetrics } from '../../shared/observability/metrics';
import type { AppContext } from '../../shared/ports/app-context';
import { createSubscription } from '../../shared/subscriptions/create-subscription';
import { stopTestDynamo, testStore } from '../helpers/dynamo';
import { startFakeContentSnare, type FakeContentSnare } from '../helpers/fake-contentsnare';
import { MemoryBlobStore, MemorySecretStore, storeTestConnection, testAppContext, testPlatformKey } from '../helpers/test-context';
import { VirtualTime } from '../helpers/virtual-time';

/**
 * The collection service documents no redelivery: a delivery it made is the only one. A burst
 * larger than the account's read limit (50 reads per 10 s) must therefore be accepted at
 * once, every delivery, and read back afterwards within the limit. Virtual time: the rate
 * limiter's waits, the queue's delays and the fake's windows share one clock that moves only
 * when every worker waits (virtual-time.ts), so the verdict does not depend on machine load.
 */
afterAll(stopTestDynamo);

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

async function world() {
  const time = new VirtualTime();
  const fake: FakeContentSnare = await startFakeContentSnare({ now: () => time.now() });
  cleanups.push(() => fake.close());
  const dir = mkdtempSync(join(tmpdir(), 'snare-burst-'));
  const queues: LocalQueues = openLocalQueues({ dir, name: 'dispatch', clock: time, maxReceives: maxReceiveCount });
  cleanups.push(() => {
    queues.close();
    rmSync(dir, { recursive: true, force: true });
  });
  const { store } = await testStore(time);
  const config = loadConfig({
    PLATFORM_API_KEY: testPlatformKey,
    DISPATCH_SIGNING_SECRET: 'signing-secret-for-tests-0123456789',
    PUBLIC_URL: 'http://127.0.0.1:9',
    CONTENTSNARE_API_URL: fake.url,
  });
  const metrics = new InMemoryMetrics();
  const base = testAppContext({
    config,
    store,
    clock: time,
    sleep: time.sleep,
    secrets: new MemorySecretStore(),
    metrics,
    logLines: [],
    queue: queues.queue,
    blobs: new MemoryBlobStore(),
  });
  const ctx: AppContext = { ...base, store: time.trackStore(store), fetch: time.trackFetch(base.fetch) };
  const connection = await storeTestConnection(
    ctx,
    {
      provider: 'contentsnare',
      authMethod: 'oauth',
      accountLogin: 'Simulated Snare Admin',
      scopes: ['read_clients', 'write_clients', 'read_requests', 'write_requests', 'read_templates', 'administration'],
    },
    'cs-burst-token',
  );
  const answers: number[] = [];
  fake.webhooks.deliver = async (url, body) => {
    const [, , , connectionId = '', token = ''] = new URL(url).pathname.split('/');
    const answer = await receiveSnareDelivery(ctx, { connectionId, token, headers: {}, body: Buffer.from(JSON.stringify(body)) });
    answers.push(answer.status);
    return answer.status;
  };
  return { time, fake, queues, ctx, metrics, connection, answers };
}

it('a burst of deliveries beyond the read limit is accepted at once, every one, and each change reaches the subscription once', async () => {
  const w = await world();
  await createSubscription(w.ctx, { connectionId: w.connection.id, trigger: 'contentsnare.client_created', agentId: 'agent-1' });
  // 80 clients, each announced twice (a redelivery, or the same change sent again): 160 deliveries, 80 changes.
  const clients = Array.from({ length: 80 }, (_, i) => {
    const id = `acc_burst${i}`;
    const client = { id, full_name: `Client ${i}`, email: `c${i}@burst.example`, client_companies: [] };
    w.fake.state.clients.set(id, client);
    return client;
  });
  // Sent 20 at a time, all within one instant of the clock (the intake's own answer deadline is the machine's).
  const all = [...clients, ...clients];
  for (let i = 0; i < all.length; i += 20) {
    for (const c of all.slice(i, i + 20)) w.fake.webhooks.emit(w.fake.webhooks.clientPayload(c, 'client_created'));
    await w.fake.webhooks.settled();
  }
  expect(w.answers).toHaveLength(160);
  expect([...new Set(w.answers)]).toEqual([202]);

  // The dispatch consumer, as the local runtime runs it: batches of 10, each message deleted once done.
  const q = w.queues.queue;
  const events: TriggerEvent[] = [];
  const t0 = w.time.now();
  while (q.size() > 0 && w.time.now() - t0 < 30 * 60_000) {
    const batch = await q.receive(10, 60);
    if (batch.length === 0) {
      await w.time.sleep(1000);
      continue;
    }
    await Promise.all(
      batch.map(async (m) => {
        if (isSnareReadBack(m.body)) {
          if ((await dispatchMessage(w.ctx, m, q, { work: providerWork })) === 'done') await q.delete(m.receiptHandle);
          return;
        }
        events.push((await fromQueueMessage(w.ctx, m.body)).event);
        await q.delete(m.receiptHandle);
      }),
    );
  }
  expect(q.size()).toBe(0);
  expect(w.queues.dlq.size()).toBe(0);
  const announced = events.map((e) => String((e.event.client as { id?: unknown }).id)).sort();
  expect(announced).toEqual(clients.map((c) => c.id).sort());
  expect(new Set(events.map((e) => e.id)).size).toBe(80);
  // The limit held: the service never had to refuse, and the reads spread over several windows.
  expect(w.fake.count(429)).toBe(0);
  expect(w.fake.problems).toEqual([]);
  expect((w.metrics.counts.get('contentsnare_read_back_deferred') ?? 0) > 0).toBe(true);
  expect(w.time.now() - t0).toBeGreaterThanOrEqual(20_000);
}, 120_000);
