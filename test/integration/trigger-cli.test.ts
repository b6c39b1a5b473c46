import { readdirSync } from 'node:fs';
import { createServer } from 'node:net';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { fitExample } from '../../shared/providers/github/triggers/fit-example';
import { sendExampleTrigger, type SendExampleDeps } from '../../local/admin/send-example';
import { AppError } from '../../shared/domain/errors';
import { mapDelivery } from '../../shared/providers/github/mapping/map-delivery';
import { mapPolledGist, mapPolledWatcher } from '../../shared/providers/github/mapping/map-polled';
import type { Connection, Subscription, SubscriptionFilters } from '../../shared/domain/model';
import { secretNames } from '../../shared/domain/model';
import { triggerCatalog } from '../../shared/wiring/providers';
import { githubTriggerIds as triggerIds, type TriggerId } from '../../shared/domain/triggers';
import { verifySignature } from '../../shared/providers/github/webhooks/signature';
import { EndpointRepo, endpointIdFor } from '../../shared/store/endpoint-repo';
import { SubscriptionRepo } from '../../shared/store/subscription-repo';
import { matchesSubscription } from '../../shared/domain/subscription-match';
import { runTriggerCommand } from '../../local/cli/trigger';
import { loadExample } from '../../shared/providers/github/triggers/example-docs';
import { FakeAgentRuntime } from '../helpers/fake-agent-runtime';
import { FakeGitHub } from '../helpers/fake-github-server';
import { startFakeHttp, type FakeServer } from '../helpers/fake-http';
import { testContext, type TestContext } from '../helpers/test-context';
import { platformKey, startRuntime, subscribeOverApi, until, type TestRuntime } from '../helpers/runtime-support';

const connection: Connection = {
  id: 'con_trigger0001',
  provider: 'github',
  accountLogin: 'octocat',
  authMethod: 'token',
  status: 'connected',
  repositories: [],
  createdAt: '2024-01-01T00:00:00.000Z',
  updatedAt: '2024-01-01T00:00:00.000Z',
};

/** Every filter a trigger accepts, set to something the documented example does not carry. */
function filtersFor(trigger: TriggerId): SubscriptionFilters {
  const f: SubscriptionFilters = {};
  for (const name of triggerCatalog[trigger].filters) {
    if (name === 'branches') f.branches = ['release/*'];
    if (name === 'labels') f.labels = ['needs-triage'];
    if (name === 'column') f.column = '42';
    if (name === 'project') f.project = 'PVT_kwDOexample';
  }
  return f;
}

function subscriptionFor(trigger: TriggerId, over: Partial<Subscription> = {}): Subscription {
  const orgOnly = triggerCatalog[trigger].source({ kind: 'repository', repository: 'a/b' }) === undefined;
  return {
    id: `sub_${trigger.slice(7)}`,
    connectionId: connection.id,
    trigger,
    agentId: 'agent-1',
    ...(orgOnly ? { organization: 'acme' } : { repository: 'acme/widgets' }),
    filters: filtersFor(trigger),
    delivery: 'webhook',
    endpointId: 'ep_aaaaaaaaaaaaaaaaaaaaaaaaaa',
    createdAt: '2024-01-02T00:00:00.000Z',
    ...over,
  };
}

describe("the documented example payloads (the code host's triggers/examples)", () => {
  it('there is one per trigger, and each maps to its trigger', () => {
    const here = join(dirname(fileURLToPath(import.meta.url)), '../../shared/providers/github/triggers/examples');
    expect(
      readdirSync(here)
        .filter((f) => f.endsWith('.json'))
        .sort(),
    ).toEqual(triggerIds.map((t) => `${t.slice(7)}.json`).sort());
    for (const trigger of triggerIds) {
      const doc = loadExample(trigger);
      if (doc.event === null) {
        const polled = trigger === 'github.new_watcher' ? mapPolledWatcher(doc.item, 'octocat/hello') : mapPolledGist(doc.item);
        expect(polled?.trigger, trigger).toBe(trigger);
        continue;
      }
      const payload = JSON.parse(JSON.stringify(doc.payload).replaceAll('{accountLogin}', 'octocat'));
      expect(
        mapDelivery({ event: doc.event, payload, accountLogin: 'octocat' }).map((m) => m.trigger),
        trigger,
      ).toContain(trigger);
    }
  });

  it('each webhook example is adjusted to the subscription: its repository or organization and every filter it sets', () => {
    for (const trigger of triggerIds.filter((t) => t !== 'github.new_gist')) {
      const sub = subscriptionFor(trigger);
      const doc = loadExample(trigger);
      if (doc.event === null) continue;
      const fitted = fitExample(doc, sub, connection);
      const mapped = mapDelivery({ event: fitted.event, payload: fitted.payload, accountLogin: 'octocat' }).filter(
        (m) => m.trigger === trigger,
      );
      expect(
        mapped.some((m) => matchesSubscription(sub, m, triggerCatalog)),
        trigger,
      ).toBe(true);
      expect(mapped[0]!.facts.repository ?? mapped[0]!.facts.organization, trigger).toMatch(/^acme/);
    }
  });

  it('refuses, saying why, a column filter given by name (card events carry the column id only)', () => {
    const sub = subscriptionFor('github.new_card_in_column', { filters: { column: 'In review' } });
    expect(() => fitExample(loadExample('github.new_card_in_column') as never, sub, connection)).toThrow(/column id/);
  });
});

describe('sendExampleTrigger', () => {
  let t: TestContext;
  let intake: FakeServer;
  let deps: SendExampleDeps;
  const secret = 'endpoint-secret-0123456789abcdef';

  beforeEach(async () => {
    t = await testContext();
    intake = await startFakeHttp(() => ({ status: 202, body: { ok: true, accepted: 1 } }));
    deps = { ctx: t.ctx, fetch, intakeUrl: (id) => `${intake.url}/webhooks/github/${id}` };
  });
  afterEach(async () => {
    t.close();
    await intake.close();
  });

  async function subscribe(trigger: TriggerId, over: Partial<Subscription> = {}): Promise<Subscription> {
    const c = await t.connect({ accountLogin: 'octocat' });
    const endpointId = endpointIdFor(c.id, { kind: 'repository', repository: 'acme/widgets' });
    await new EndpointRepo(t.ctx.store).create({
      id: endpointId,
      connectionId: c.id,
      target: { kind: 'repository', repository: 'acme/widgets' },
      hookId: 7,
      events: ['pull_request'],
      createdAt: new Date().toISOString(),
    });
    await t.secrets.put(secretNames.endpointSecret(endpointId), secret);
    const sub = subscriptionFor(trigger, { id: SubscriptionRepo.newId(), connectionId: c.id, endpointId, ...over });
    await new SubscriptionRepo(t.ctx.store).create(sub);
    return sub;
  }

  it('sends other bytes each time (same payload), so a second example is not taken for a replay of the first', async () => {
    await subscribe('github.new_pull_request');
    await sendExampleTrigger(deps, 'github.new_pull_request');
    await sendExampleTrigger(deps, 'github.new_pull_request');
    const [a, b] = intake.requests;
    expect(a!.body).not.toBe(b!.body);
    expect(JSON.parse(a!.body)).toEqual(JSON.parse(b!.body));
  });

  it('posts the example, signed over its exact bytes with the endpoint secret, with the code host headers', async () => {
    const sub = await subscribe('github.new_pull_request');
    const result = await sendExampleTrigger(deps, 'github.new_pull_request');
    expect(result).toMatchObject({
      kind: 'webhook',
      subscriptionId: sub.id,
      endpointId: sub.endpointId,
      event: 'pull_request',
      intake: { status: 202 },
    });
    const [req] = intake.requests;
    expect(req!.path).toBe(`/webhooks/github/${sub.endpointId}`);
    expect(req!.headers['x-github-event']).toBe('pull_request');
    expect(req!.headers['x-github-delivery']).toMatch(/^[0-9a-f-]{36}$/);
    expect(req!.headers['x-github-hook-id']).toBe('7');
    expect(await verifySignature(secret, Buffer.from(req!.body, 'utf8'), String(req!.headers['x-hub-signature-256']))).toBe(true);
    const mapped = mapDelivery({ event: 'pull_request', payload: JSON.parse(req!.body), accountLogin: 'octocat' });
    expect(mapped.some((m) => m.trigger === 'github.new_pull_request' && matchesSubscription(sub, m, triggerCatalog))).toBe(true);
  });

  it('picks the newest subscription to the trigger, or the one named', async () => {
    const older = await subscribe('github.new_issue', { createdAt: '2024-01-01T00:00:00.000Z' });
    const newer = await subscribe('github.new_issue', { createdAt: '2024-06-01T00:00:00.000Z' });
    expect((await sendExampleTrigger(deps, 'github.new_issue')).subscriptionId).toBe(newer.id);
    expect((await sendExampleTrigger(deps, 'github.new_issue', older.id)).subscriptionId).toBe(older.id);
    await expect(sendExampleTrigger(deps, 'github.new_star', older.id)).rejects.toThrow(/is to github.new_issue/);
  });

  it('answers not_found when nothing subscribes to the trigger', async () => {
    const e = await sendExampleTrigger(deps, 'github.new_release').catch((x: unknown) => x);
    expect(e).toBeInstanceOf(AppError);
    expect((e as AppError).code).toBe('not_found');
    expect(intake.requests).toHaveLength(0);
  });

  it("enqueues a polled trigger's event as the poller would, without posting to the intake", async () => {
    const c = await t.connect();
    const sub: Subscription = {
      id: SubscriptionRepo.newId(),
      connectionId: c.id,
      trigger: 'github.new_gist',
      agentId: 'agent-1',
      filters: {},
      delivery: 'polling',
      createdAt: new Date().toISOString(),
    };
    await new SubscriptionRepo(t.ctx.store).create(sub);
    const result = await sendExampleTrigger(deps, 'github.new_gist');
    expect(result).toMatchObject({ kind: 'enqueued', subscriptionId: sub.id });
    const [m] = await t.receiveAll();
    expect(JSON.parse(m!.body)).toMatchObject({ trigger: 'github.new_gist', subscriptionId: sub.id, agentId: 'agent-1' });
    expect(intake.requests).toHaveLength(0);
  });

  it("enqueues a new_watcher example (polled from the subscribers list) for the subscription's repository", async () => {
    const c = await t.connect();
    const sub: Subscription = {
      id: SubscriptionRepo.newId(),
      connectionId: c.id,
      trigger: 'github.new_watcher',
      agentId: 'agent-w',
      repository: 'acme/widgets',
      filters: {},
      delivery: 'polling',
      createdAt: new Date().toISOString(),
    };
    await new SubscriptionRepo(t.ctx.store).create(sub);
    expect(await sendExampleTrigger(deps, 'github.new_watcher')).toMatchObject({ kind: 'enqueued', subscriptionId: sub.id });
    const [m] = await t.receiveAll();
    expect(JSON.parse(m!.body)).toMatchObject({
      trigger: 'github.new_watcher',
      subscriptionId: sub.id,
      event: { action: 'started', repository: { full_name: 'acme/widgets' }, sender: { login: 'octocat' } },
    });
  });
});

/** A URL where nothing listens (connection refused): no runtime running. */
async function closedUrl(): Promise<string> {
  const server = createServer();
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  const port = (server.address() as { port: number }).port;
  await new Promise((r) => server.close(r));
  return `http://127.0.0.1:${port}`;
}

describe('runTriggerCommand', () => {
  let admin: FakeServer | undefined;
  afterEach(async () => admin?.close());

  it('tells how to create a subscription with curl when there is none', async () => {
    admin = await startFakeHttp(() => ({
      status: 404,
      body: { error: { code: 'not_found', message: 'No subscription to github.new_issue yet' } },
    }));
    const lines: string[] = [];
    expect(
      await runTriggerCommand(['new_issue'], { env: { LOCAL_URL: admin.url, PLATFORM_API_KEY: 'k' }, out: (l) => lines.push(l) }),
    ).toBe(1);
    const text = lines.join('\n');
    expect(text).toContain('No subscription to github.new_issue yet');
    expect(text).toContain(`curl -s -X POST ${admin.url}/subscriptions`);
    expect(text).toContain('"trigger": "github.new_issue"');
    expect(admin.requests[0]!.json).toEqual({ trigger: 'github.new_issue' });
    expect(admin.requests[0]!.headers.authorization).toBe('Bearer k');
  });

  it('says to start the runtime when none runs', async () => {
    const lines: string[] = [];
    expect(await runTriggerCommand(['github.new_issue'], { env: { LOCAL_URL: await closedUrl() }, out: (l) => lines.push(l) })).toBe(1);
    expect(lines.join('\n')).toContain('npm start');
  });

  it('refuses an unknown trigger with the list of ids', async () => {
    const lines: string[] = [];
    expect(await runTriggerCommand(['new_thing'], { env: {}, out: (l) => lines.push(l) })).toBe(2);
    expect(lines.join('\n')).toContain('github.new_discussion_comment');
  });
});

describe('npm run trigger against the running local runtime', () => {
  let rt: TestRuntime | undefined;
  let github: FakeGitHub | undefined;
  let agent: FakeAgentRuntime | undefined;
  afterEach(async () => {
    await rt?.dispose();
    await github?.close();
    await agent?.close();
  });

  it('an example new_issue goes through the intake and reaches the agent runtime', async () => {
    github = await FakeGitHub.start();
    github.addUser('ghp_triggerCliTestToken0000000000000000', 'octocat');
    agent = await FakeAgentRuntime.start();
    rt = await startRuntime({ GITHUB_API_URL: github.server.url, AGENT_RUNTIME_URL: agent.url });
    const { subscriptionId } = await subscribeOverApi(rt.url, github, 'ghp_triggerCliTestToken0000000000000000');
    const lines: string[] = [];
    expect(
      await runTriggerCommand(['new_issue'], { env: { LOCAL_URL: rt.url, PLATFORM_API_KEY: platformKey }, out: (l) => lines.push(l) }),
    ).toBe(0);
    expect(lines.join('\n')).toContain('The intake answered 202');
    await until('the example event reaches the agent runtime', () => agent!.events().some((e) => e.subscriptionId === subscriptionId));
    expect(agent.events()[0]).toMatchObject({ trigger: 'github.new_issue', subscriptionId });
  });

  it('--wait reads the event history: with a real AGENT_RUNTIME_URL (no sandbox inbox) it reports the delivery and exits 0', async () => {
    github = await FakeGitHub.start();
    github.addUser('ghp_triggerCliTestToken0000000000000000', 'octocat');
    agent = await FakeAgentRuntime.start();
    rt = await startRuntime({ GITHUB_API_URL: github.server.url, AGENT_RUNTIME_URL: agent.url });
    await subscribeOverApi(rt.url, github, 'ghp_triggerCliTestToken0000000000000000');
    const lines: string[] = [];
    const code = await runTriggerCommand(['new_issue', '--wait', '--timeout', '20'], {
      env: { LOCAL_URL: rt.url, PLATFORM_API_KEY: platformKey },
      out: (l) => lines.push(l),
    });
    expect(code, lines.join('\n')).toBe(0);
    const delivered = agent.events()[0]!;
    expect(lines.join('\n')).toContain(`Delivered: event ${String(delivered.id)} reached the agent runtime at `);
    expect(lines.join('\n')).toContain('(answered HTTP 200)');
  });

  it('--wait says where the event stands when it is not delivered in time: retrying, with the last answer', async () => {
    github = await FakeGitHub.start();
    github.addUser('ghp_triggerCliTestToken0000000000000000', 'octocat');
    agent = await FakeAgentRuntime.start();
    for (let i = 0; i < 5; i++) agent.answers.push({ status: 500, body: { error: 'down' } });
    rt = await startRuntime({ GITHUB_API_URL: github.server.url, AGENT_RUNTIME_URL: agent.url });
    await subscribeOverApi(rt.url, github, 'ghp_triggerCliTestToken0000000000000000');
    const lines: string[] = [];
    let polls = 0;
    const code = await runTriggerCommand(['new_issue', '--wait', '--timeout', '5'], {
      env: { LOCAL_URL: rt.url, PLATFORM_API_KEY: platformKey },
      out: (l) => lines.push(l),
      // Time moves only once the first try has failed (polls are real), so the verdict does not depend on the wall clock.
      now: () => (agent!.requests.length > 0 && ++polls > 20 ? 10_000 : 0),
      sleep: (ms) => new Promise((r) => setTimeout(r, ms)),
    });
    expect(code).toBe(1);
    expect(lines.join('\n')).toMatch(
      /Not delivered within 5 s: event evt_\S+ is retrying after \d+ tr(y|ies); last try \S+: HTTP 500; next try /,
    );
  });
});
