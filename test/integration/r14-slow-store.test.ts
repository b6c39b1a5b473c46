import { randomUUID } from 'node:crypto';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { routes as intakeRoutes } from '../../functions/webhook-intake/routes';
import { providerWebhooks } from '../../shared/wiring/provider-intake';
import { createRouter } from '../../shared/http/router';
import { keys } from '../../shared/store/table-design';
import { issueOpenedBody, seedTenant, signedShot } from '../helpers/seed';
import { stopTestDynamo } from '../helpers/dynamo';
import { FaultSwitch, faultyStore } from '../helpers/faulty';
import { testContext, type TestContext } from '../helpers/test-context';

/**
 * RELIABILITY 14: a dependency that stops answering never keeps the answer past the code
 * host's 10 s. The intake gives up at its deadline (shortened here), answers 5xx, and the
 * redelivery (the sweep's, once the code host records the failure) is processed.
 */
afterAll(stopTestDynamo);
const open: TestContext[] = [];
afterEach(() => {
  for (const t of open.splice(0)) t.close();
});

async function setup() {
  const t = await testContext();
  open.push(t);
  t.ctx.clock = { now: () => Date.now() };
  const tenant = await seedTenant(t.ctx, 1);
  const sw = new FaultSwitch();
  const real = t.ctx.store;
  t.ctx.store = faultyStore(real, sw);
  const router = createRouter(intakeRoutes(t.ctx, providerWebhooks, { deadlineMs: 1000 }), { platformApiKey: t.ctx.platformApiKey });
  const send = async (guid: string) => {
    const shot = signedShot(tenant, issueOpenedBody(), guid);
    return (await router({ method: 'POST', path: shot.path, headers: shot.headers, query: new URLSearchParams(), body: shot.body })).status;
  };
  return { t, tenant, sw, real, send };
}

describe('R14: slow dependencies', () => {
  it('R14: a store that hangs on the claim: 503 at the deadline, and the redelivery after it recovers is processed once', async () => {
    const { t, tenant, sw, real, send } = await setup();
    expect(await send(randomUUID())).toBe(202);
    sw.hang();
    const guid = randomUUID();
    expect(await send(guid)).toBe(503);
    sw.heal();
    expect(await real.get(keys.deliveryClaim(tenant.endpointId, guid))).toBeUndefined();
    expect(await send(guid)).toBe(202);
    expect(await send(guid)).toBe(200);
    expect(t.queues.queue.size()).toBe(2);
  });

  it('R14: a store that hangs before anything is known about the endpoint (cold container): 503, nothing claimed', async () => {
    const { t, tenant, sw, real, send } = await setup();
    sw.hang();
    const guid = randomUUID();
    expect(await send(guid)).toBe(503);
    sw.heal();
    expect(await real.get(keys.deliveryClaim(tenant.endpointId, guid))).toBeUndefined();
    expect(await send(guid)).toBe(202);
    expect(t.queues.queue.size()).toBe(1);
  });
});
