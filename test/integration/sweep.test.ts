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

async function setup(env: Record<string, string> = {}) {
  const t = await host.context(env);
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
    expect(report).toEqual({ endpoints: 1, found: 1, redelivered: 1, failed: 0, pages: 1, deferred: 0, walking: 0 });
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

const minute = 60_000;
const windowMs = 3 * 24 * 60 * minute;

/**
 * A busy hook as the code host lists it: `count` deliveries evenly over the last three days
 * (newest first), every `failEvery`-th one failed with a 5xx or no answer at all (status 0).
 */
function busyHook(hookId: number, now: number, count: number, failEvery: number) {
  const failed: Array<{ id: number; guid: string }> = [];
  for (let i = count - 1; i >= 0; i--) {
    const at = now - windowMs + minute + Math.floor((i * (windowMs - 2 * minute)) / count);
    const fails = i % failEvery === 0;
    const d = host.github.recordDelivery(hookId, {
      guid: `busy-${i}`,
      event: 'issues',
      status_code: fails ? (i % 2 === 0 ? 502 : 0) : 200,
      delivered_at: new Date(at).toISOString(),
    });
    if (fails) failed.push({ id: d.id, guid: d.guid });
  }
  return failed;
}

function deliveryListings(hookId: number) {
  return host.github.requests.filter((r) => r.method === 'GET' && r.path.endsWith(`/hooks/${hookId}/deliveries`));
}

describe('the redelivery sweep on a busy hook', () => {
  it('walks back to the window start through every page of 3,000 deliveries, over rounds within its page budget, and asks for each failure no attempt of ours accepted', async () => {
    const { t, hook, endpointId } = await setup();
    const failed = busyHook(hook.id, t.clock.now(), 3000, 25);
    // Older than the window: the code host can no longer redeliver it.
    host.github.deliveries.get(hook.id)?.push({
      id: 1,
      guid: 'too-old',
      event: 'issues',
      status_code: 500,
      redelivery: false,
      delivered_at: new Date(t.clock.now() - windowMs - 10 * minute).toISOString(),
    });
    // Failed at the code host, but an attempt of ours accepted it (the mark is written before the 2xx).
    const accepted = failed.filter((_, i) => i % 5 === 0);
    for (const f of accepted) await t.ctx.store.put({ ...keys.deliveryClaim(endpointId, f.guid), state: 'done' });
    const expected = failed.filter((f) => !accepted.includes(f));

    const rounds = [];
    for (let i = 0; i < 10; i++) {
      const before = deliveryListings(hook.id).length;
      const report = await sweepOnce(t.ctx, { pagesPerHook: 12 });
      rounds.push(deliveryListings(hook.id).length - before);
      t.clock.advance(2 * minute);
      if (report.walking === 0) break;
    }
    // 3,001 deliveries at 100 a page: 31 pages, 12 a round, resumed where the last round stopped
    // (the last page holds the one delivery older than the window, where the walk ends).
    expect(rounds).toEqual([12, 12, 7]);
    for (const r of deliveryListings(hook.id)) expect(r.query.get('per_page')).toBe('100');
    const asked = host.github.redeliveries.map((r) => r.deliveryId).sort((a, b) => a - b);
    expect(asked).toEqual(expected.map((f) => f.id).sort((a, b) => a - b));
  });

  it('reads only what is new once it has walked the window, and a redelivery that failed again is asked for again', async () => {
    const { t, hook } = await setup();
    busyHook(hook.id, t.clock.now(), 1000, 1000);
    for (let i = 0; i < 5; i++) if ((await sweepOnce(t.ctx)).walking === 0) break;
    expect(host.github.redeliveries).toHaveLength(1);
    // Two minutes later: 120 new deliveries, one of them failed.
    t.clock.advance(2 * minute);
    for (let i = 0; i < 120; i++)
      host.github.recordDelivery(hook.id, {
        guid: `new-${i}`,
        event: 'issues',
        status_code: i === 60 ? 503 : 202,
        delivered_at: new Date(t.clock.now() - (120 - i) * 500).toISOString(),
      });
    const before = deliveryListings(hook.id).length;
    expect(await sweepOnce(t.ctx)).toMatchObject({ redelivered: 1, walking: 0 });
    // The new deliveries and a few minutes of overlap: 2 pages, not the 12 of the whole window.
    expect(deliveryListings(hook.id).length - before).toBeLessThanOrEqual(3);
    expect(host.github.redeliveries.map((r) => r.deliveryId)).toHaveLength(2);
  });

  it("stops walking when the connection's rate budget runs low, and carries on from there in a later round", async () => {
    const { t, hook } = await setup();
    const failed = busyHook(hook.id, t.clock.now(), 2000, 100);
    host.github.rateBudget = { remaining: 505, resetAt: Math.floor(t.clock.now() / 1000) + 3600 };
    const report = await sweepOnce(t.ctx, { rateReserve: 500, pagesPerHook: 50 });
    expect(report).toMatchObject({ deferred: 1, walking: 1 });
    // A request or two past the reserve at most: the answer that says so is the last one.
    expect(host.github.rateBudget.remaining).toBeGreaterThanOrEqual(498);
    host.github.rateBudget = undefined;
    for (let i = 0; i < 5; i++) if ((await sweepOnce(t.ctx, { pagesPerHook: 50 })).walking === 0) break;
    const asked = new Set(host.github.redeliveries.map((r) => r.deliveryId));
    expect([...asked].sort()).toEqual(failed.map((f) => f.id).sort());
    expect(host.github.redeliveries).toHaveLength(asked.size);
  });

  it('walks an organization hook the same way', async () => {
    const { t, hook, endpointId } = await setup();
    const org = { kind: 'organization' as const, organization: 'octo-org' };
    const orgHook: FakeHook = { ...hook, id: 5151, owner: 'orgs/octo-org' };
    host.github.hooks.set(orgHook.id, orgHook);
    const repo = await new EndpointRepo(t.ctx.store).get(endpointId);
    const connectionId = repo?.connectionId ?? '';
    await new EndpointRepo(t.ctx.store).create({
      id: endpointIdFor(connectionId, org),
      connectionId,
      target: org,
      hookId: orgHook.id,
      events: ['issues'],
      createdAt: new Date().toISOString(),
    });
    const failed = busyHook(orgHook.id, t.clock.now(), 450, 150);
    for (let i = 0; i < 5; i++) if ((await sweepOnce(t.ctx)).walking === 0) break;
    expect(deliveryListings(orgHook.id).every((r) => r.path === `/orgs/octo-org/hooks/${orgHook.id}/deliveries`)).toBe(true);
    expect(
      host.github.redeliveries
        .filter((r) => r.hookId === orgHook.id)
        .map((r) => r.deliveryId)
        .sort(),
    ).toEqual(failed.map((f) => f.id).sort());
  });
});

describe('the redelivery sweep for hooks registered at a relay', () => {
  it('asks for a redelivery of each delivery the relay answered 2xx that no attempt of ours claimed, once it has had time to arrive', async () => {
    const { t, hook, endpointId } = await setup({ WEBHOOK_PROXY_URL: 'https://smee.io/sweep-channel' });
    const at = (msAgo: number) => new Date(t.clock.now() - msAgo).toISOString();
    host.github.recordDelivery(hook.id, { guid: 'relayed-and-claimed', event: 'issues', status_code: 200, delivered_at: at(10 * minute) });
    await t.ctx.store.put({ ...keys.deliveryClaim(endpointId, 'relayed-and-claimed'), state: 'done' });
    const lost = host.github.recordDelivery(hook.id, {
      guid: 'relayed-while-away',
      event: 'issues',
      status_code: 200,
      delivered_at: at(9 * minute),
    });
    const failed = host.github.recordDelivery(hook.id, {
      guid: 'relay-down',
      event: 'issues',
      status_code: 502,
      delivered_at: at(8 * minute),
    });
    // Relayed a moment ago: its replay may still be on its way.
    const recent = host.github.recordDelivery(hook.id, {
      guid: 'relayed-just-now',
      event: 'issues',
      status_code: 200,
      delivered_at: at(5_000),
    });

    expect(await sweepOnce(t.ctx)).toMatchObject({ found: 2, redelivered: 2 });
    expect(host.github.redeliveries.map((r) => r.deliveryId).sort()).toEqual([lost.id, failed.id].sort());
    t.clock.advance(2 * minute);
    expect(await sweepOnce(t.ctx)).toMatchObject({ found: 1, redelivered: 1 });
    expect(host.github.redeliveries.map((r) => r.deliveryId)).toContain(recent.id);
    // Asked once each: the next round asks for nothing.
    t.clock.advance(2 * minute);
    expect(await sweepOnce(t.ctx)).toMatchObject({ found: 0, redelivered: 0 });
    expect(host.github.redeliveries).toHaveLength(3);
  });

  it('leaves alone the successful deliveries of a hook that is not registered at a relay', async () => {
    const { t, hook } = await setup();
    host.github.recordDelivery(hook.id, {
      guid: 'direct-ok',
      event: 'issues',
      status_code: 202,
      delivered_at: new Date(t.clock.now() - 10 * minute).toISOString(),
    });
    expect(await sweepOnce(t.ctx)).toMatchObject({ found: 0, redelivered: 0 });
  });
});
