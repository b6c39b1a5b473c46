import { describe, expect, it } from 'vitest';
import { secretNames } from '../../shared/domain/model';
import { keys } from '../../shared/store/table-design';
import { deliveryLeaseSeconds } from '../../shared/intake/delivery-claims';
import { claimOnce } from '../../shared/store/once-claim';
import { maxRedeliveriesPerGuid, sweepOnce } from '../../shared/sweep/sweep-once';
import { EndpointRepo, endpointIdFor } from '../../shared/store/endpoint-repo';
import type { FakeHook } from '../helpers/fake-github-server';
import { useFakeCodeHost } from '../helpers/code-host-setup';

const token = 'ghp_sweepTestToken0000000000000000000000000';
const host = useFakeCodeHost({ [token]: 'octocat' });

async function setup() {
  const t = await host.context();
  const connection = await t.connect({}, token);
  const target = { kind: 'repository' as const, repository: 'octocat/sweep' };
  const endpointId = endpointIdFor(connection.id, target);
  const hook: FakeHook = {
    id: 4242,
    owner: 'repos/octocat/sweep',
    name: 'web',
    active: true,
    events: ['issues'],
    config: { url: `http://x/webhooks/github/${endpointId}`, content_type: 'json', secret: 's' },
  };
  host.github.hooks.set(hook.id, hook);
  await t.secrets.put(secretNames.endpointSecret(endpointId), 's');
  await new EndpointRepo(t.ctx.store).create({
    id: endpointId,
    connectionId: connection.id,
    target,
    hookId: hook.id,
    events: ['issues'],
    createdAt: new Date().toISOString(),
  });
  return { t, hook, endpointId };
}

describe('redelivery sweep', () => {
  it('asks once for the redelivery of a delivery that failed, and never for one that succeeded', async () => {
    const { t, hook } = await setup();
    const failed = host.github.recordDelivery(hook.id, { guid: 'lost-1', event: 'issues', status_code: 503 });
    host.github.recordDelivery(hook.id, { guid: 'fine-1', event: 'issues', status_code: 202 });
    const report = await sweepOnce(t.ctx);
    expect(report).toEqual({ endpoints: 1, found: 1, redelivered: 1, failed: 0 });
    expect(host.github.redeliveries).toEqual([{ hookId: hook.id, deliveryId: failed.id }]);
    // A second sweep does not ask again.
    expect(await sweepOnce(t.ctx)).toMatchObject({ found: 0, redelivered: 0 });
    expect(host.github.redeliveries).toHaveLength(1);
  });

  it('leaves alone a failed delivery whose redelivery already succeeded', async () => {
    const { t, hook } = await setup();
    host.github.recordDelivery(hook.id, { guid: 'retried-1', event: 'issues', status_code: 500 });
    host.github.recordDelivery(hook.id, { guid: 'retried-1', event: 'issues', status_code: 200, redelivery: true });
    expect(await sweepOnce(t.ctx)).toMatchObject({ found: 0, redelivered: 0 });
    expect(host.github.redeliveries).toEqual([]);
  });

  it('leaves alone a delivery we claimed (the code host timed out, but we processed it)', async () => {
    const { t, hook, endpointId } = await setup();
    host.github.recordDelivery(hook.id, { guid: 'slow-but-done', event: 'issues', status_code: 0 });
    await t.ctx.store.put({ ...keys.deliveryClaim(endpointId, 'slow-but-done') });
    expect(await sweepOnce(t.ctx)).toMatchObject({ found: 0, redelivered: 0 });
    expect(host.github.redeliveries).toEqual([]);
  });

  it('redelivers a delivery whose attempt died after claiming it, once its lease has passed, and not before', async () => {
    const { t, hook, endpointId } = await setup();
    const failed = host.github.recordDelivery(hook.id, { guid: 'died-1', event: 'issues', status_code: 0 });
    const claim = await claimOnce(t.ctx.store, t.ctx.clock, keys.deliveryClaim(endpointId, 'died-1'), deliveryLeaseSeconds);
    expect(claim.kind).toBe('claimed');
    // An attempt is (for all we know) still running: not now.
    expect(await sweepOnce(t.ctx)).toMatchObject({ found: 0, redelivered: 0 });
    t.clock.advance((deliveryLeaseSeconds + 1) * 1000);
    expect(await sweepOnce(t.ctx)).toMatchObject({ found: 1, redelivered: 1 });
    expect(host.github.redeliveries).toEqual([{ hookId: hook.id, deliveryId: failed.id }]);
  });

  it('asks again when the redelivery it asked for failed too, up to a bound', async () => {
    const { t, hook } = await setup();
    host.github.recordDelivery(hook.id, { guid: 'twice-1', event: 'issues', status_code: 503 });
    for (let i = 0; i < maxRedeliveriesPerGuid + 2; i++) {
      await sweepOnce(t.ctx);
      // The code host sends it again; the intake fails again.
      host.github.recordDelivery(hook.id, { guid: 'twice-1', event: 'issues', status_code: 503, redelivery: true });
    }
    expect(host.github.redeliveries).toHaveLength(maxRedeliveriesPerGuid);
    const ids = host.github.redeliveries.map((r) => r.deliveryId);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('counts a hook it cannot read as failed and carries on', async () => {
    const { t, hook } = await setup();
    host.github.hooks.delete(hook.id);
    expect(await sweepOnce(t.ctx)).toMatchObject({ endpoints: 1, failed: 1, redelivered: 0 });
  });
});
