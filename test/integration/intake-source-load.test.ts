import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { routes as intakeRoutes } from '../../functions/webhook-intake/routes';
import { createRouter } from '../../shared/http/router';
import type { WebhookIntake } from '../../shared/intake/provider-intake';
import { providerWebhooks } from '../../shared/wiring/provider-intake';
import { stopTestDynamo } from '../helpers/dynamo';
import { deliveryRequest, examplePayload } from '../helpers/signed-delivery';
import { testContext, testPlatformKey, type TestContext } from '../helpers/test-context';

afterAll(stopTestDynamo);

const open: TestContext[] = [];
afterEach(() => {
  for (const t of open.splice(0)) t.close();
});

/** The hook route, its source failing to load the first `failures` times (a chunk that cannot be read). */
function withFailingHookSource(failures: number): WebhookIntake[] {
  let left = failures;
  return providerWebhooks.map((w) =>
    w.route !== 'hookDelivery'
      ? w
      : {
          ...w,
          source: (ctx) => (left-- > 0 ? Promise.reject(new Error('Cannot find module ./chunks/hook-source.mjs')) : w.source(ctx)),
        },
  );
}

describe("a webhook route's source, read on the route's first delivery", () => {
  it('that cannot be loaded is answered 503 and counted, so the code host sends the delivery again; the next delivery loads it', async () => {
    const t = await testContext();
    open.push(t);
    const router = createRouter(intakeRoutes(t.ctx, withFailingHookSource(1)), { platformApiKey: async () => testPlatformKey });
    const delivery = deliveryRequest({
      endpointId: 'ep_aaaaaaaaaaaaaaaaaaaaaaaaaa',
      secret: 'some-secret-0123456789abcdef',
      event: 'issues',
      body: JSON.stringify(examplePayload('issues', 'opened')),
      guid: 'guid-load-1',
    });
    const first = await router(delivery);
    expect(first.status).toBe(503);
    expect(JSON.parse(String(first.body))).toEqual({
      error: { code: 'unavailable', message: 'Intake failed; the delivery will be retried' },
    });
    expect(t.metrics.counts.get('webhook_failed|reason=error')).toBe(1);
    expect(t.logLines.some((l) => l.includes('Cannot find module'))).toBe(true);
    // Loaded now: the unknown endpoint is the source's own answer.
    expect((await router(delivery)).status).toBe(404);
  });

  it('is not needed to refuse a delivery missing its required headers', async () => {
    const t = await testContext();
    open.push(t);
    const router = createRouter(intakeRoutes(t.ctx, withFailingHookSource(Number.POSITIVE_INFINITY)), {
      platformApiKey: async () => testPlatformKey,
    });
    const delivery = deliveryRequest({
      endpointId: 'ep_aaaaaaaaaaaaaaaaaaaaaaaaaa',
      secret: 'some-secret-0123456789abcdef',
      event: 'issues',
      body: '{}',
      guid: 'guid-load-2',
    });
    const { 'x-github-event': _, ...withoutEvent } = delivery.headers;
    const res = await router({ ...delivery, headers: withoutEvent });
    expect(res.status).toBe(400);
    expect(JSON.parse(String(res.body))).toEqual({ error: { code: 'invalid_input', message: 'Missing header X-GitHub-Event' } });
  });
});
