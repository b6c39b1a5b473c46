import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { routes as intakeRoutes } from '../../functions/webhook-intake/routes';
import { providerWebhooks } from '../../shared/wiring/provider-intake';
import { createRouter } from '../../shared/http/router';
import type { RefusedDelivery } from '../../shared/intake/intake-source';
import { stopTestDynamo } from '../helpers/dynamo';
import { seedTenant, signedShot } from '../helpers/seed';
import { examplePayload } from '../helpers/signed-delivery';
import { testContext, type TestContext } from '../helpers/test-context';

afterAll(stopTestDynamo);
const open: TestContext[] = [];
afterEach(() => {
  for (const t of open.splice(0)) t.close();
});

async function setup() {
  const t = await testContext();
  open.push(t);
  const tenant = await seedTenant(t.ctx, 1);
  const refused: RefusedDelivery[] = [];
  const router = createRouter(intakeRoutes(t.ctx, providerWebhooks, { observer: { refused: (r) => refused.push(r) } }), {
    platformApiKey: t.ctx.platformApiKey,
  });
  const send = async (event: string, body: unknown, guid: string) => {
    const shot = signedShot(tenant, Buffer.from(JSON.stringify(body)), guid, event);
    const res = await router({ method: 'POST', path: shot.path, headers: shot.headers, query: new URLSearchParams(), body: shot.body });
    return { status: res.status, body: JSON.parse(String(res.body)) as Record<string, unknown> };
  };
  return { t, tenant, refused, send };
}

describe('a signed delivery whose body does not fit its event', () => {
  it('is answered 2xx but counted under its own metric by event, logged at WARN with its keys, and told to the observer', async () => {
    const { t, tenant, refused, send } = await setup();
    // An `issues` body carrying a `label` of its own would fit; a `star` body under `issues` does not.
    const res = await send('issues', examplePayload('star', 'created'), 'guid-refused-1');
    expect(res).toEqual({ status: 200, body: { ok: true, accepted: 0 } });
    expect(t.queues.queue.size()).toBe(0);
    expect(t.metrics.counts.get('webhook_rejected_shape|event=issues')).toBe(1);
    expect(t.metrics.counts.get('webhook_ignored')).toBeUndefined();
    const warn = t.logLines
      .map((l) => JSON.parse(l) as Record<string, unknown>)
      .find((l) => l.message?.toString().includes('does not fit'));
    expect(warn).toMatchObject({ level: 'WARN', deliveryId: 'guid-refused-1', event: 'issues' });
    expect(warn?.offendingKeys).toEqual(expect.arrayContaining(['issue', 'starred_at']));
    expect(refused).toEqual([
      {
        pathId: tenant.endpointId,
        deliveryId: 'guid-refused-1',
        event: 'issues',
        reason: 'shape',
        keys: expect.arrayContaining(['starred_at']),
      },
    ]);
  });

  it('leaves an event that maps to no trigger counted as ignored, not refused', async () => {
    const { t, refused, send } = await setup();
    const res = await send('watch', examplePayload('watch', 'started'), 'guid-ignored-1');
    expect(res.status).toBe(200);
    expect(t.metrics.counts.get('webhook_ignored')).toBe(1);
    expect([...t.metrics.counts.keys()].some((k) => k.startsWith('webhook_rejected_shape'))).toBe(false);
    expect(refused).toEqual([]);
  });
});
