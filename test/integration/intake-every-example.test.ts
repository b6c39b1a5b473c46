import { afterAll, describe, expect, it } from 'vitest';
import { routes as intakeRoutes } from '../../functions/webhook-intake/routes';
import { triggerCatalog } from '../../shared/wiring/providers';
import { providerWebhooks } from '../../shared/wiring/provider-intake';
import { githubTriggerIds as triggerIds } from '../../shared/domain/triggers';
import { secretNames, type Subscription } from '../../shared/domain/model';
import { createRouter } from '../../shared/http/router';
import { EndpointRepo, endpointIdFor } from '../../shared/store/endpoint-repo';
import { SubscriptionRepo } from '../../shared/store/subscription-repo';
import { allExamples, example } from '../fixtures/webhooks/examples';
import { stopTestDynamo } from '../helpers/dynamo';
import { deliveryRequest } from '../helpers/signed-delivery';
import { testContext, testPlatformKey } from '../helpers/test-context';

afterAll(stopTestDynamo);

/**
 * Every payload the code host documents (@octokit/webhooks-examples, every
 * set), signed and delivered with the headers the code host sends, is answered 2xx: accepted,
 * ignored or duplicate, never refused and never a failure (a 4xx/5xx makes the code host
 * count a failed delivery and, after enough, disable the hook).
 */
describe('every documented webhook example through the intake', () => {
  it('is answered 2xx, with an organization hook subscribed to every trigger it can serve', async () => {
    const t = await testContext();
    try {
      const connection = await t.connect({ accountLogin: 'octocat' });
      const target = { kind: 'organization' as const, organization: 'Octocoders' };
      const endpointId = endpointIdFor(connection.id, target);
      const secret = 'secret-of-every-example-0123456789abcdef';
      await t.secrets.put(secretNames.endpointSecret(endpointId), secret);
      const served = triggerIds.filter((id) => triggerCatalog[id].source(target)?.kind === 'webhook');
      const events = [...new Set(served.flatMap((id) => triggerCatalog[id].events))];
      await new EndpointRepo(t.ctx.store).create({
        id: endpointId,
        connectionId: connection.id,
        target,
        hookId: 7,
        events,
        createdAt: new Date().toISOString(),
      });
      for (const trigger of served) {
        const sub: Subscription = {
          id: SubscriptionRepo.newId(),
          connectionId: connection.id,
          trigger,
          agentId: 'every-agent',
          organization: 'Octocoders',
          filters: {},
          delivery: 'webhook',
          endpointId,
          createdAt: new Date().toISOString(),
        };
        await new SubscriptionRepo(t.ctx.store).create(sub);
      }
      const router = createRouter(intakeRoutes(t.ctx, providerWebhooks), { platformApiKey: async () => testPlatformKey });
      const answers = new Map<number, number>();
      const refused: string[] = [];
      let n = 0;
      for (const e of allExamples()) {
        const res = await router(
          deliveryRequest({ endpointId, secret, event: e.event, body: JSON.stringify(e.payload), guid: `every-${n++}` }),
        );
        answers.set(res.status, (answers.get(res.status) ?? 0) + 1);
        if (res.status < 200 || res.status > 299) refused.push(`${e.set} ${e.key}#${e.index}: ${res.status} ${String(res.body)}`);
      }
      expect(refused).toEqual([]);
      // Some were accepted (202) and some mapped to nothing (200): both paths were taken.
      expect(answers.get(202)).toBeGreaterThan(50);
      expect(answers.get(200)).toBeGreaterThan(50);

      // Event confusion (docs/security.md, section 5): the header is not signed. A signed repository.created
      // body sent as `star` is answered 2xx and fires nothing; sent as what it is, it fires.
      const queued = t.queues.queue.size();
      const body = JSON.stringify({ ...example('repository.created'), organization: { login: 'Octocoders', id: 38302899 } });
      const lying = await router(deliveryRequest({ endpointId, secret, event: 'star', body, guid: 'confused-1' }));
      expect(lying.status).toBe(200);
      expect(JSON.parse(String(lying.body))).toMatchObject({ accepted: 0 });
      expect(t.queues.queue.size()).toBe(queued);
      const honest = await router(deliveryRequest({ endpointId, secret, event: 'repository', body, guid: 'confused-2' }));
      expect(honest.status).toBe(202);
    } finally {
      t.close();
    }
  }, 120_000);
});
