import { randomUUID } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { routes as intakeRoutes } from '../../functions/webhook-intake/routes';
import { providerWebhooks } from '../../shared/wiring/provider-intake';
import { createRouter } from '../../shared/http/router';
import type { AppContext } from '../../shared/ports/app-context';
import { EndpointRepo, endpointIdFor } from '../../shared/store/endpoint-repo';
import { sweepDefaults, sweepOnce } from '../../shared/sweep/sweep-once';
import { planSweepRound } from '../../shared/sweep/sweep-plan';
import { sweepWorkItems } from '../../shared/sweep/sweep-work';
import type { OutgoingMessage } from '../../shared/ports';
import { appShot, storeAppConnection, storeAppSubscription, testAppSecret } from '../helpers/app-webhook';
import { consumerPass } from '../helpers/consumer-pass';
import { FakeAgentRuntime } from '../helpers/fake-agent-runtime';
import type { FakeHookDelivery } from '../helpers/fake-github-app';
import { githubAppTestContext, type GitHubAppTestContext } from '../helpers/github-app-context';
import type { Shot } from '../helpers/seed';
import { examplePayload } from '../helpers/signed-delivery';

const repo = 'Codertocat/Hello-World';
const installationId = 61;

let t: GitHubAppTestContext | undefined;
let runtime: FakeAgentRuntime | undefined;
afterEach(async () => {
  await t?.stop();
  await runtime?.close();
  t = undefined;
  runtime = undefined;
});

function intake(ctx: AppContext): (shot: Shot) => Promise<number> {
  const router = createRouter(intakeRoutes(ctx, providerWebhooks), { platformApiKey: ctx.platformApiKey });
  return async (shot) =>
    (await router({ method: 'POST', path: shot.path, headers: shot.headers, query: new URLSearchParams(), body: shot.body })).status;
}

/** The real `issues.opened` example for the installation, each with its own bytes and delivery id. */
function issueShot(): Shot {
  const p = examplePayload('issues', 'opened') as Record<string, any>;
  p.issue.node_id = `I_${randomUUID()}`;
  return appShot('issues', p, { installationId });
}

/** A GitHub App connection subscribed to new issues, its App webhook's redeliveries sent to the intake in-process. */
async function setup() {
  runtime = await FakeAgentRuntime.start();
  t = await githubAppTestContext({ GITHUB_APP_WEBHOOK_SECRET: testAppSecret, AGENT_RUNTIME_URL: runtime.url });
  const connection = await storeAppConnection(t.ctx, { installationId, account: 'Codertocat' });
  await storeAppSubscription(t.ctx, connection, 'github.new_issue', repo, 'agent-1');
  const call = intake(t.ctx);
  const sent = new Map<string, Shot>();
  t.fake.app.redeliver = async (first: FakeHookDelivery) => {
    const shot = sent.get(first.guid);
    if (!shot) return 0;
    return call(shot);
  };
  /** A delivery GitHub logged with `statusCode`; `reachIntake`: it did reach the intake (which may have answered late). */
  const deliver = async (statusCode: number, reachIntake: boolean) => {
    const shot = issueShot();
    const guid = shot.headers['x-github-delivery'] ?? '';
    sent.set(guid, shot);
    if (reachIntake) expect(await call(shot)).toBe(202);
    return t!.fake.app.recordHookDelivery({ guid, event: 'issues', action: 'opened', installationId, statusCode });
  };
  return { t, runtime, deliver };
}

describe("the redelivery sweep of the GitHub App's webhook", () => {
  it('redelivers, once, a failed App delivery the intake never claimed, and it reaches the agent once; a claimed one is left alone', async () => {
    const { t, runtime, deliver } = await setup();
    const lost = await deliver(0, false);
    await deliver(0, true); // the intake took it, GitHub timed out waiting
    await deliver(202, true);
    const report = await sweepOnce(t.ctx);
    expect(report).toMatchObject({ endpoints: 1, found: 1, redelivered: 1, failed: 0, pages: 1 });
    expect(t.fake.app.redeliveryRequests).toEqual([lost.id]);
    await t.fake.app.redeliveriesSent();
    expect(t.fake.app.hookDeliveries.at(-1)).toMatchObject({ guid: lost.guid, redelivery: true, status_code: 202 });
    while ((await consumerPass(t.ctx, t.queues.queue)).received > 0);
    const events = runtime.requests.map((r) => JSON.parse(r.body) as { agentId: string });
    // The two the intake took, and the lost one once.
    expect(events.map((e) => e.agentId)).toEqual(['agent-1', 'agent-1', 'agent-1']);
    expect(await sweepOnce(t.ctx)).toMatchObject({ found: 0, redelivered: 0 });
    expect(t.fake.app.redeliveryRequests).toHaveLength(1);
    expect(t.fake.app.refusedJwts).toEqual([]);
  });

  it('reads the log with the App JWT only, in bounded pages, and resumes at its cursor next round', async () => {
    const { t } = await setup();
    for (let i = 0; i < 250; i++) {
      t.fake.app.recordHookDelivery({ guid: `g-${i}`, event: 'issues', installationId, statusCode: 200 });
    }
    const first = await sweepOnce(t.ctx, { appPagesPerRound: 2 });
    expect(first).toMatchObject({ pages: 2, walking: 1, redelivered: 0 });
    const second = await sweepOnce(t.ctx, { appPagesPerRound: 2 });
    expect(second).toMatchObject({ pages: 1, walking: 0 });
    const reads = t.fake.requestsTo('/app/hook/deliveries');
    expect(reads.map((r) => r.query.get('per_page'))).toEqual(['100', '100', '100']);
    // The third read carries on where the second stopped, not from the newest again.
    const cursors = reads.map((r) => r.query.get('cursor'));
    expect(cursors[0]).toBeNull();
    expect(cursors[1]).toEqual(expect.any(String));
    expect(cursors[2]).toEqual(expect.any(String));
    expect(cursors[2]).not.toBe(cursors[1]);
    expect(reads.every((r) => /^Bearer ey/.test(String(r.headers.authorization)))).toBe(true);
    expect(t.fake.app.refusedJwts).toEqual([]);
  });

  it('is skipped when the App has no private key here', async () => {
    const { t } = await setup();
    t.fake.app.recordHookDelivery({ guid: 'x', event: 'issues', installationId, statusCode: 0 });
    const ctx: AppContext = { ...t.ctx, githubAppSecret: async () => undefined };
    expect(await sweepOnce(ctx)).toMatchObject({ endpoints: 0, redelivered: 0, failed: 0 });
    expect(t.fake.requestsTo('/app/hook/deliveries')).toEqual([]);
  });

  it("asks for every one of a burst of lost App deliveries larger than a hook's page budget, within the App's own budget of one round", async () => {
    const { t } = await setup();
    t.fake.app.redeliver = undefined;
    // Lost at the front door: GitHub logged no answer, the intake never saw them.
    const burst = 2100;
    expect(burst).toBeGreaterThan(sweepDefaults.pagesPerHook * 100);
    for (let i = 0; i < burst; i++) t.fake.app.recordHookDelivery({ guid: `burst-${i}`, event: 'issues', installationId, statusCode: 0 });
    const report = await sweepOnce(t.ctx);
    expect(report).toMatchObject({ found: burst, redelivered: burst, failed: 0, walking: 0, pages: Math.ceil(burst / 100) });
    expect(new Set(t.fake.app.redeliveryRequests).size).toBe(burst);
    // Rounds needed for a burst: one per `appPagesPerRound` pages of it.
    expect(Math.ceil(burst / 100 / sweepDefaults.appPagesPerRound)).toBe(1);
  }, 120_000);

  it("plans the App's webhook first in every round, and a burst on it past one item's page budget is walked through, item after item, within the round's interval", async () => {
    const { t } = await setup();
    t.fake.app.redeliver = undefined;
    const burst = 1200;
    for (let i = 0; i < burst; i++) t.fake.app.recordHookDelivery({ guid: `split-${i}`, event: 'issues', installationId, statusCode: 0 });
    const connection = await storeAppConnection(t.ctx, { installationId: 62, account: 'octo-org' });
    const target = { kind: 'repository' as const, repository: 'octo-org/quiet' };
    await new EndpointRepo(t.ctx.store).create({
      id: endpointIdFor(connection.id, target),
      connectionId: connection.id,
      target,
      hookId: 8,
      events: ['issues'],
      createdAt: new Date(t.clock.now()).toISOString(),
    });
    const queue: OutgoingMessage[] = [];
    const work = { sendBatch: async (m: OutgoingMessage[]) => void queue.push(...m) };
    expect(await planSweepRound(t.ctx, work)).toMatchObject({ hooks: 2, planned: 2 });
    expect(queue.map((m) => JSON.parse(m.body).hook)).toEqual(['app', endpointIdFor(connection.id, target)]);
    const plannedAt = t.clock.now();
    let items = 0;
    while (queue.length > 0) {
      const batch = queue.splice(0).map((m) => ({ messageId: `${items}-${m.id}`, body: m.body, receiptHandle: m.id, receiveCount: 1 }));
      items += batch.length;
      await sweepWorkItems(t.ctx, batch, { continueOn: work, appPagesPerRound: 4 });
      t.clock.advance(1000);
    }
    // 12 pages at 4 an item: the App's webhook took three items, the hook of ours one.
    expect(items).toBe(3 + 1);
    expect(new Set(t.fake.app.redeliveryRequests).size).toBe(burst);
    expect(t.clock.now() - plannedAt).toBeLessThan(t.ctx.config.sweepIntervalSeconds * 1000);
  }, 120_000);

  it("walks the App's webhook before any hook of ours, so the round's time goes to it first", async () => {
    const { t } = await setup();
    t.fake.app.addInstallation({ id: 62, account: { login: 'octo-org', id: 1062, type: 'Organization' } });
    const connection = await storeAppConnection(t.ctx, { installationId: 62, account: 'octo-org' });
    const target = { kind: 'repository' as const, repository: 'octo-org/busy' };
    await new EndpointRepo(t.ctx.store).create({
      id: endpointIdFor(connection.id, target),
      connectionId: connection.id,
      target,
      hookId: 7,
      events: ['issues'],
      createdAt: new Date(t.clock.now()).toISOString(),
    });
    const lost = t.fake.app.recordHookDelivery({ guid: 'lost-app', event: 'issues', installationId, statusCode: 0 });
    const listed: string[] = [];
    const ctx: AppContext = {
      ...t.ctx,
      fetch: (input, init) => {
        const url = new URL(String(input instanceof Request ? input.url : input));
        if (url.pathname.endsWith('/deliveries')) listed.push(url.pathname);
        return t!.ctx.fetch(input, init);
      },
    };
    await sweepOnce(ctx);
    expect(listed[0]).toBe('/app/hook/deliveries');
    expect(listed).toContain('/repos/octo-org/busy/hooks/7/deliveries');
    expect(t.fake.app.redeliveryRequests).toEqual([lost.id]);
  });

  it("stops asking on an answer of GitHub's secondary rate limit, counts no failure, and asks for the rest next round", async () => {
    const { t } = await setup();
    t.fake.app.redeliver = undefined;
    for (let i = 0; i < 30; i++) t.fake.app.recordHookDelivery({ guid: `limited-${i}`, event: 'issues', installationId, statusCode: 0 });
    let asked = 0;
    // GitHub's secondary rate limit may come as a 403 with neither Retry-After nor a spent budget, only its message.
    const limited: AppContext = {
      ...t.ctx,
      fetch: async (input, init) => {
        const url = String(input instanceof Request ? input.url : input);
        if (url.endsWith('/attempts') && ++asked > 5) {
          return new Response(JSON.stringify({ message: 'You have exceeded a secondary rate limit. Please wait a few minutes.' }), {
            status: 403,
            headers: { 'content-type': 'application/json' },
          });
        }
        return t!.ctx.fetch(input, init);
      },
    };
    const first = await sweepOnce(limited);
    expect(first).toMatchObject({ failed: 0, redelivered: 5 });
    const second = await sweepOnce(t.ctx);
    expect(second.failed).toBe(0);
    // Each of the 30 asked for (the 5 asked first whose redelivery failed again are asked for again, as they should be).
    const guidOf = (id: number) => t.fake.app.hookDeliveries.find((d) => d.id === id)?.guid;
    expect(new Set(t.fake.app.redeliveryRequests.map(guidOf)).size).toBe(30);
  });
});
