import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { writeStoredToken } from '../../shared/store/stored-token';
import { createContentsnareTools } from '../../shared/providers/contentsnare/tools';
import { secretNames, type TriggerEvent } from '../../shared/domain/model';
import { enqueueEvents } from '../../shared/dispatch/fan-out';
import { CircuitBoard } from '../../shared/dispatch/circuit-board';
import { dispatchBatch } from '../../shared/dispatch/dispatch-batch';
import { awsLanes } from '../../shared/dispatch/lanes';
import { providerWork } from '../../shared/wiring/provider-work';
import { revokeForDisconnect } from '../../shared/oauth/revoke';
import { pollOnce } from '../../shared/polling/poll-once';
import { receiveSnareDelivery } from '../../shared/providers/contentsnare/intake/snare-source';
import type { Store } from '../../shared/ports';
import { appTokenLease, appTokenRow, matchesLeadingKey, tableAccessByRole } from '../../shared/store/table-access';
import { EndpointRepo } from '../../shared/store/endpoint-repo';
import { SubscriptionRepo } from '../../shared/store/subscription-repo';
import { sweepOnce } from '../../shared/sweep/sweep-once';
import { planSweepRound } from '../../shared/sweep/sweep-plan';
import { sweepWorkItems } from '../../shared/sweep/sweep-work';
import { planPollRound } from '../../shared/polling/poll-plan';
import { pollWorkItems } from '../../shared/polling/poll-work';
import type { OutgoingMessage } from '../../shared/ports';
import { invokeTool } from '../../shared/tools/invoke';
import { allProviderTools } from '../../shared/wiring/provider-tools';
import { routes as toolStepRoutes } from '../../functions/tool-step/routes';
import { routes as oauthRoutes } from '../../functions/oauth/routes';
import { createRouter } from '../../shared/http/router';
import { resolveScopedKey } from '../../shared/keys/scoped-keys';
import { consumerPass } from '../helpers/consumer-pass';
import { FakeAgentRuntime } from '../helpers/fake-agent-runtime';
import { startFakeContentSnare, type FakeContentSnare } from '../helpers/fake-contentsnare';
import { intakeCaller } from '../helpers/intake-caller';
import { appOrigin, oauthTestContext, type OAuthTestContext } from '../helpers/oauth-test-context';
import { issueOpenedBody, seedTenant, signedShot } from '../helpers/seed';
import type { TestContext } from '../helpers/test-context';
import { useFakeCodeHost } from '../helpers/code-host-setup';
import { browseToCallback, oauthConnectionId } from '../helpers/oauth-connect';
import { platformApiCaller } from '../helpers/platform-api-caller';
import { appEnv, appShot, storeAppConnection, storeAppSubscription } from '../helpers/app-webhook';
import { examplePayload } from '../helpers/signed-delivery';
import { FakeGitHubAppWorld } from '../helpers/fake-github-app';
import { storeOver } from '../helpers/store-over';

/**
 * Runs a role's real flows with the Store port recording every partition key it touches
 * (for a Query on an index: `index:value`, the index's partition key, which is what IAM's
 * dynamodb:LeadingKeys checks there), then asserts each one is allowed by the role's
 * declared patterns for the table or that index. Nothing here evaluates IAM itself: this is
 * what keeps the stack's LeadingKeys conditions from breaking a flow silently.
 */
function recording(store: Store, touched: { push(key: string): unknown }): Store {
  return {
    get: (key, opts) => {
      touched.push(key.pk);
      return store.get(key, opts);
    },
    getAll: (keys, opts) => {
      for (const key of keys) touched.push(key.pk);
      return store.getAll(keys, opts);
    },
    put: (item, opts) => {
      touched.push(item.pk);
      return store.put(item, opts);
    },
    putAll: (items) => {
      for (const item of items) touched.push(item.pk);
      return store.putAll(items);
    },
    delete: (key, opts) => {
      touched.push(key.pk);
      return store.delete(key, opts);
    },
    query: (input) => {
      touched.push(input.index ? `${input.index}:${input.pk}` : input.pk);
      return store.query(input);
    },
  };
}

/**
 * The same, in place: for contexts whose routes and token provider already hold the store
 * object. Returns `during(fn)`, which records only what `fn` touches (not the test's seeding).
 */
function recordInPlace(store: Store): (fn: () => Promise<unknown>) => Promise<string[]> {
  let sink: string[] | undefined;
  const inner = storeOver(store);
  const spy = recording(inner, { push: (k: string) => sink?.push(k) });
  Object.assign(store, spy);
  return async (fn) => {
    const touched: string[] = [];
    sink = touched;
    try {
      await fn();
    } finally {
      sink = undefined;
    }
    return touched;
  };
}

function disallowed(role: string, touched: string[]): string[] {
  const access = tableAccessByRole[role];
  if (!access) throw new Error(`no declared table access for role ${role}`);
  const allowed = (k: string) => {
    const m = /^(gsi[123]):(.*)$/s.exec(k);
    const patterns = m ? (access[m[1] as 'gsi1' | 'gsi2' | 'gsi3'] ?? []) : access.table;
    const value = m ? (m[2] as string) : k;
    return patterns.some((p) => matchesLeadingKey(p, value));
  };
  return [...new Set(touched)].filter((k) => !allowed(k)).map((k) => `${role}: ${k}`);
}

/** What the role flows below touched, by role: the last test checks no declared pattern goes unused. */
const recorded = new Map<string, string[]>();

/** A role's flow touched only what the role declares; remembered for the unused-pattern check. */
function expectAllowed(role: string, touched: string[]): void {
  expect(disallowed(role, touched)).toEqual([]);
  recorded.set(role, [...(recorded.get(role) ?? []), ...touched]);
}

/** Every family (prefix up to the first `#`, index-qualified) a flow touched: shows a flow did reach the table. */
function families(touched: string[]): string[] {
  return [...new Set(touched.map((k) => k.replace(/#.*$/s, '#')))].sort();
}

let runtime: FakeAgentRuntime;
let snare: FakeContentSnare;
let oauth: OAuthTestContext;
const ghToken = 'ghp_tableAccessTestToken00000000000000000';
const host = useFakeCodeHost({ [ghToken]: 'octocat' }, { env: { PUBLIC_URL: 'https://hooks.example.test' } });
beforeAll(async () => {
  runtime = await FakeAgentRuntime.start();
  snare = await startFakeContentSnare();
  oauth = await oauthTestContext();
});
afterAll(async () => {
  await Promise.all([runtime.close(), snare.close(), oauth.stop()]);
});
afterEach(() => {
  runtime.requests.length = 0;
  runtime.answers.length = 0;
});

const context = () => host.context({ AGENT_RUNTIME_URL: runtime.url, CONTENTSNARE_API_URL: snare.url });

/** The platform API's routes as its handler builds them (revocation on disconnect included). */
const platformApi = (ctx: TestContext['ctx']) => platformApiCaller(ctx, { routes: { revoke: revokeForDisconnect(ctx) } });

function event(n: number): TriggerEvent {
  return {
    id: `evt_${n}`,
    trigger: 'github.new_issue',
    subscriptionId: 'sub_1',
    agentId: 'agent-1',
    connectionId: 'conn_1',
    deliveryId: `guid-${n}`,
    occurredAt: '2026-11-22T10:00:00.000Z',
    event: { issue: { number: n } },
  };
}

/** The subscription `event()` names (`sub_1`, agent-1, github.new_issue), on `connectionId`. */
async function storeSubscription(t: TestContext, connectionId: string): Promise<void> {
  await new SubscriptionRepo(t.ctx.store).create({
    id: 'sub_1',
    connectionId,
    trigger: 'github.new_issue',
    agentId: 'agent-1',
    filters: {},
    delivery: 'webhook',
    createdAt: '2026-11-22T09:00:00.000Z',
  });
}

describe('table access by role (the LeadingKeys the stack grants)', () => {
  it('matches IAM StringLike patterns', () => {
    expect(matchesLeadingKey('EVT#*', 'EVT#evt_1')).toBe(true);
    expect(matchesLeadingKey('EVT#*', 'EVTX#1')).toBe(false);
    expect(matchesLeadingKey('EVT#*', 'CONN#1')).toBe(false);
    expect(matchesLeadingKey('CONNS', 'CONNS')).toBe(true);
    expect(matchesLeadingKey('CONNS', 'CONNSX')).toBe(false);
  });

  it('dispatch: a delivery, a failed attempt retried, and a redelivered duplicate touch only its declared items', async () => {
    const t = await context();
    const touched: string[] = [];
    const dispatchCtx = { ...t.ctx, store: recording(t.ctx.store, touched) };
    await enqueueEvents(t.ctx, [event(1), event(2)]);
    runtime.answers.push({ status: 500 });
    const first = await consumerPass(dispatchCtx, t.queues.queue);
    expect(first.received).toBe(2);
    t.clock.advance(10 * 60_000);
    await consumerPass(dispatchCtx, t.queues.queue);
    // The same event again (an at-least-once redelivery): the done claim answers it.
    await enqueueEvents(t.ctx, [event(1)]);
    await consumerPass(dispatchCtx, t.queues.queue);
    // The connection's status (connection-gate.ts): a deleted or suspended App installation's events are not delivered.
    expect(families(touched)).toEqual(['CONN#', 'EVH#', 'EVT#']);
    expectAllowed('dispatch', touched);
  });

  it("dispatch on the Lambda main lane: an agent's pace shared with the other containers, its probe and its verdict", async () => {
    const t = await context();
    const touched: string[] = [];
    const ctx = { ...t.ctx, store: recording(t.ctx.store, touched) };
    await enqueueEvents(t.ctx, [event(1), event(2)]);
    const queue = t.queues.queue;
    const messages = await queue.receive(10, 30);
    const lane = awsLanes(queue, queue).main;
    const never = () => new Promise<void>(() => {});
    expect(
      await dispatchBatch(ctx, messages, queue, { lane, circuits: new CircuitBoard(t.clock), work: providerWork, untriedWait: never }),
    ).toEqual({
      failedMessageIds: [],
    });
    expect(families(touched)).toEqual(['CONN#', 'EVH#', 'EVT#', 'PACE#']);
    expectAllowed('dispatch', touched);
  });

  it("dispatch: a follow-up read of the code host (a comment-only review read back) reads the event's connection", async () => {
    const t = await context();
    const connection = await t.connect({ accountLogin: 'octocat' }, ghToken);
    const touched: string[] = [];
    const dispatchCtx = { ...t.ctx, store: recording(t.ctx.store, touched) };
    const review: TriggerEvent = {
      ...event(3),
      trigger: 'github.new_pull_request_review',
      connectionId: connection.id,
      event: {
        repository: { full_name: 'octocat/hello' },
        pull_request: { number: 1 },
        review: { id: 7, state: 'commented', body: null, submitted_at: '2026-11-22T10:00:00Z' },
      },
    };
    await enqueueEvents(t.ctx, [review]);
    expect((await consumerPass(dispatchCtx, t.queues.queue)).received).toBe(1);
    expect(families(touched)).toEqual(['CONN#', 'EVH#', 'EVT#']);
    expectAllowed('dispatch', touched);
  });

  it('webhook-intake: a routed delivery, its duplicate, a replay under a new id, an unknown endpoint and a bad signature', async () => {
    const t = await context();
    const tenant = await seedTenant(t.ctx, 2);
    const touched: string[] = [];
    const call = intakeCaller({ ...t.ctx, store: recording(t.ctx.store, touched) });
    const shot = signedShot(tenant, issueOpenedBody(), 'guid-a');
    expect(await call(shot)).toBe(202);
    expect(await call(shot)).toBe(200);
    expect(await call({ ...shot, headers: { ...shot.headers, 'x-github-delivery': 'guid-b' } })).toBe(200);
    expect(await call({ ...shot, path: '/webhooks/github/ep_unknown' })).toBe(404);
    expect(await call({ ...shot, headers: { ...shot.headers, 'x-hub-signature-256': `sha256=${'0'.repeat(64)}` } })).toBe(401);
    // A repository renamed: the connection, its subscriptions (gsi2 SUBS) and its hooks (gsi2 EPS) take the new name.
    const renamed = examplePayload('repository', 'renamed') as Record<string, any>;
    renamed.changes.repository.name.from = 'Old-World';
    expect(await call(signedShot(tenant, Buffer.from(JSON.stringify(renamed)), 'guid-r', 'repository'))).toBe(200);
    expect((await t.receiveAll()).length).toBe(2);
    // The first delivery fills the repository's id in on the subscriptions (SUB#).
    expect(families(touched)).toEqual([
      'CONN#',
      'DLV#',
      'DLVB#',
      'EP#',
      'EVH#',
      'SUB#',
      'gsi1:ROUTE#',
      'gsi2:EPS',
      'gsi2:EPS#',
      'gsi2:SUBS',
      'gsi2:SUBS#',
    ]);
    expectAllowed('webhook-intake', touched);
  });

  it('webhook-intake and dispatch: a GitHub App delivery routed by installation, its lifecycle events queued and worked, a bad signature', async () => {
    // GitHub's App side answers the suspend's read-back (`GET /app/installations/2`, JWT).
    const gitHubApp = new FakeGitHubAppWorld({ appId: Number(appEnv.GITHUB_APP_ID) });
    gitHubApp.addInstallation({ id: 2, account: { login: 'Codertocat', id: 1002, type: 'Organization' }, suspended: true });
    host.github.before = (req) => (req.path.startsWith('/app/') ? gitHubApp.handle(req) : undefined);
    const t = await host.context({ ...appEnv, GITHUB_APP_PRIVATE_KEY: gitHubApp.privateKeyPem });
    const connection = await storeAppConnection(t.ctx, { installationId: 2, account: 'Codertocat', userId: '1' });
    await storeAppSubscription(t.ctx, connection, 'github.new_issue', 'Codertocat/Hello-World', 'agent-app');
    const touched: string[] = [];
    const call = intakeCaller({ ...t.ctx, store: recording(t.ctx.store, touched) });
    const issue = appShot('issues', JSON.parse(issueOpenedBody().toString('utf8')), { installationId: 2 });
    expect(await call(issue)).toBe(202);
    expect(await call({ ...issue, headers: { ...issue.headers, 'x-hub-signature-256': `sha256=${'0'.repeat(64)}` } })).toBe(401);
    expect((await t.receiveAll()).length).toBe(1);
    // The lifecycle events are claimed and queued here; their read-backs and updates run in dispatch.
    const suspend = examplePayload('installation', 'suspend') as Record<string, any>;
    suspend.installation.id = 2;
    expect(await call(appShot('installation', suspend, { installationId: null }))).toBe(202);
    expect(
      await call(appShot('github_app_authorization', examplePayload('github_app_authorization', 'revoked'), { installationId: null })),
    ).toBe(202);
    const dispatched: string[] = [];
    expect(await consumerPass({ ...t.ctx, store: recording(t.ctx.store, dispatched) }, t.queues.queue)).toEqual({ received: 2, failed: 0 });
    host.github.before = undefined;
    expect(families(touched)).toEqual(['DLV#', 'DLVB#', 'EVH#', 'SUB#', 'gsi1:AROUTE#', 'gsi1:INST#']);
    expectAllowed('webhook-intake', touched);
    expect(families(dispatched)).toEqual(['CONN#', 'gsi1:INST#', 'gsi2:CONNS', 'gsi2:CONNS#']);
    expectAllowed('dispatch', dispatched);
  });

  it('platform-api: connections and subscriptions created, read, listed, changed and deleted, and a disconnect', async () => {
    const t = await context();
    const during = recordInPlace(t.ctx.store);
    const api = platformApi(t.ctx);
    host.github.hooks.clear();
    const touched = await during(async () => {
      const created = await api('POST', '/connections', { provider: 'github', token: ghToken, label: 'work' });
      expect(created.status, JSON.stringify(created.body)).toBe(201);
      const id = created.body.id as string;
      expect((await api('GET', '/connections')).status).toBe(200);
      expect((await api('GET', `/connections/${id}`)).status).toBe(200);
      expect((await api('PATCH', `/connections/${id}`, { label: 'home' })).status).toBe(200);
      const hooked = await api('POST', '/subscriptions', {
        connectionId: id,
        agentId: 'a',
        trigger: 'github.new_issue',
        repository: 'octocat/hello',
      });
      expect(hooked.status, JSON.stringify(hooked.body)).toBe(201);
      const polled = await api('POST', '/subscriptions', { connectionId: id, agentId: 'a', trigger: 'github.new_gist' });
      expect(polled.status, JSON.stringify(polled.body)).toBe(201);
      expect((await api('GET', '/subscriptions')).status).toBe(200);
      expect((await api('GET', `/subscriptions?connectionId=${id}`)).status).toBe(200);
      expect((await api('GET', `/subscriptions/${hooked.body.id}`)).status).toBe(200);
      expect((await api('DELETE', `/subscriptions/${polled.body.id}`)).status).toBe(200);
      expect((await api('DELETE', `/subscriptions/${hooked.body.id}`)).status).toBe(200);
      await api('POST', '/subscriptions', { connectionId: id, agentId: 'a', trigger: 'github.new_issue', repository: 'octocat/other' });
      const key = await api('POST', '/keys', { label: 'agent', connections: [id] });
      expect(key.status, JSON.stringify(key.body)).toBe(201);
      expect((await api('GET', '/keys')).status).toBe(200);
      expect((await api('GET', '/subscriptions', undefined, `Bearer ${key.body.key}`)).status).toBe(200);
      expect((await api('DELETE', `/keys/${key.body.id}`)).status).toBe(200);
      expect((await api('DELETE', `/connections/${id}`)).status).toBe(200);
    });
    expect(families(touched)).toEqual([
      'CONN#',
      'CURSOR#',
      'EP#',
      'KEY#',
      'LEASE#',
      'PSRC#',
      'SUB#',
      'gsi2:CONNS',
      'gsi2:CONNS#',
      'gsi2:EPS',
      'gsi2:EPS#',
      'gsi2:KEYS',
      'gsi2:KEYS#',
      'gsi2:SUBS',
      'gsi2:SUBS#',
    ]);
    expectAllowed('platform-api', touched);
  });

  it('platform-api: the event history listed (all, one connection, a scoped key), one event read and replayed', async () => {
    const t = await context();
    const connection = await t.connect({ accountLogin: 'octocat' }, ghToken);
    await storeSubscription(t, connection.id);
    const mine = { ...event(5), connectionId: connection.id };
    await enqueueEvents(t.ctx, [mine]);
    const api = platformApi(t.ctx);
    const key = (await api('POST', '/keys', { label: 'agent', connections: [connection.id] })).body.key as string;
    const during = recordInPlace(t.ctx.store);
    const touched = await during(async () => {
      expect((await api('GET', '/events?status=queued')).status).toBe(200);
      expect((await api('GET', `/events?connectionId=${connection.id}`)).status).toBe(200);
      expect((await api('GET', '/events', undefined, `Bearer ${key}`)).status).toBe(200);
      expect((await api('GET', `/events/${mine.id}`)).status).toBe(200);
      expect((await api('POST', `/events/${mine.id}/replay`)).status).toBe(202);
      // The replay's gates (the connection, the subscription) and its bounds (ledgers under EVH# and KEY#).
      expect((await api('POST', `/events/${mine.id}/replay`, undefined, `Bearer ${key}`)).status).toBe(202);
    });
    // All events: their shards (gsi3 EVTS#<n>) and the partition the previous layout listed them in (gsi2 EVTS).
    expect(families(touched)).toEqual(['CONN#', 'EVH#', 'EVT#', 'KEY#', 'SUB#', 'gsi1:EVTC#', 'gsi2:EVTS', 'gsi3:EVTS#']);
    expectAllowed('platform-api', touched);
  });

  it("dispatch: a replay's gates read again before it is posted (its connection and subscription)", async () => {
    const t = await context();
    const connection = await t.connect({ accountLogin: 'octocat' }, ghToken);
    await storeSubscription(t, connection.id);
    const touched: string[] = [];
    const dispatchCtx = { ...t.ctx, store: recording(t.ctx.store, touched) };
    await enqueueEvents(t.ctx, [{ ...event(6), id: 'evt_replay_6', connectionId: connection.id, replayOf: 'evt_6' }]);
    expect((await consumerPass(dispatchCtx, t.queues.queue)).received).toBe(1);
    expect(runtime.requests).toHaveLength(1);
    expect(families(touched)).toEqual(['CONN#', 'EVH#', 'EVT#', 'SUB#']);
    expectAllowed('dispatch', touched);
  });

  it('platform-api: disconnecting an OAuth connection revokes its grant (the revocation reads the connections listing)', async () => {
    const connection = await oauthConnect('github');
    const during = recordInPlace(oauth.ctx.store);
    const api = platformApi(oauth.ctx);
    const touched = await during(async () => {
      expect((await api('DELETE', `/connections/${connection}`)).status).toBe(200);
    });
    expect(families(touched)).toEqual(expect.arrayContaining(['CONN#', 'gsi2:CONNS', 'gsi2:CONNS#']));
    expectAllowed('platform-api', touched);
  });

  it('poller: a polling round over gist, repository and watcher subscriptions, twice', async () => {
    const t = await context();
    const api = platformApi(t.ctx);
    host.github.gists.set('octocat', []);
    host.github.repos.set('octocat', []);
    host.github.watchers.set('octocat/hello', []);
    const { body: conn } = await api('POST', '/connections', { provider: 'github', token: ghToken });
    for (const sub of [
      { trigger: 'github.new_gist' },
      { trigger: 'github.new_repository' },
      { trigger: 'github.new_watcher', repository: 'octocat/hello' },
    ]) {
      expect((await api('POST', '/subscriptions', { connectionId: conn.id, agentId: 'a', ...sub })).status).toBe(201);
    }
    const during = recordInPlace(t.ctx.store);
    const touched = await during(async () => {
      expect(await pollOnce(t.ctx)).toMatchObject({ subscriptions: 3, failed: 0 });
      const at = new Date(t.clock.now() + 60_000).toISOString();
      host.github.gists.set('octocat', [
        {
          id: 'g1',
          created_at: at,
          updated_at: at,
          description: 'g',
          public: true,
          html_url: 'https://gist.example/g1',
          files: {},
          owner: { login: 'octocat' },
        },
      ]);
      // The second round as AWS runs it: planned onto the work queue (the plan's start kept in the table), then a worker's batch.
      const sent: OutgoingMessage[] = [];
      await planPollRound(t.ctx, { sendBatch: async (m) => void sent.push(...m) });
      const batch = sent.map((m) => ({ messageId: m.id, body: m.body, receiptHandle: m.id, receiveCount: 1 }));
      expect((await pollWorkItems(t.ctx, batch)).report).toMatchObject({ announced: 1 });
    });
    // The collection service's recovery check lists its hooks every round (none here).
    expect(families(touched)).toEqual(['CONN#', 'CURSOR#', 'EVH#', 'PLAN#', 'PSRC#', 'gsi1:POLL#', 'gsi2:CSHOOKS', 'gsi2:CSHOOKS#']);
    expectAllowed('poller', touched);
  });

  it('collection service: a subscribe registers the hook, a delivery is read back and claimed, and a recovery round finds a lost one', async () => {
    const t = await context();
    snare.webhooks.deliver = async () => 0;
    const scopes = ['read_clients', 'write_clients', 'read_requests', 'write_requests', 'read_templates', 'administration'];
    const conn = await t.connect({ provider: 'contentsnare', authMethod: 'oauth', accountLogin: 'Agency', scopes }, 'cs-table-access');
    const during = recordInPlace(t.ctx.store);
    const api = platformApi(t.ctx);
    const subscribing = await during(async () => {
      const sub = await api('POST', '/subscriptions', { connectionId: conn.id, trigger: 'contentsnare.request_completed', agentId: 'a' });
      expect(sub.status).toBe(201);
    });
    expectAllowed('platform-api', subscribing);
    const service = (method: string, path: string, body?: unknown) =>
      fetch(`${snare.url}/partner_api/v1${path}`, {
        method,
        headers: { authorization: 'Bearer cs-table-access', 'content-type': 'application/json' },
        body: body === undefined ? undefined : JSON.stringify(body),
      }).then((r) => r.json() as Promise<Record<string, any>>);
    const made = async (name: string) => {
      const r = await service('POST', '/requests', {
        name,
        client_email: `${name}@x.example`,
        client_full_name: name,
        request_template_name: 'Onboarding',
        status: 'published',
      });
      t.clock.advance(1000);
      await service('PUT', `/requests/${r.id}`, { status: 'completed' });
      return r;
    };
    t.clock.advance(1000);
    const delivered = await made('delivered');
    const hook = [...snare.webhooks.hooks.values()].find((h) => h.url.includes(conn.id));
    const [, , , connectionId, token] = new URL(hook?.url ?? 'http://x/').pathname.split('/');
    const touched: string[] = [];
    const ctx = { ...t.ctx, store: recording(t.ctx.store, touched) };
    const body = Buffer.from(JSON.stringify({ event_name: 'request_completed', id: delivered.id }));
    expect((await receiveSnareDelivery(ctx, { connectionId: connectionId ?? '', token: token ?? '', headers: {}, body })).status).toBe(202);
    // The intake only accepts (the hook's token, the connection); the dispatch consumer reads back, claims and queues.
    expect(families(touched)).toEqual(['CONN#', 'CSHOOK#']);
    expectAllowed('webhook-intake', touched);
    const readBack: string[] = [];
    expect(await consumerPass({ ...t.ctx, store: recording(t.ctx.store, readBack) }, t.queues.queue)).toEqual({ received: 1, failed: 0 });
    expect(families(readBack)).toEqual(['CONN#', 'CSHOOK#', 'CSSUBJ#', 'DLVB#', 'EVH#', 'RATE#', 'gsi1:ROUTE#']);
    expectAllowed('dispatch', readBack);
    await t.receiveAll();
    await made('lost');
    const polling = await during(async () => {
      expect(await pollOnce(t.ctx)).toMatchObject({ announced: 1, failed: 0 });
    });
    expect(families(polling)).toEqual([
      'CONN#',
      'CSREC#',
      'CSSUBJ#',
      'DLVB#',
      'EVH#',
      'RATE#',
      'gsi1:POLL#',
      'gsi1:ROUTE#',
      'gsi2:CSHOOKS',
      'gsi2:CSHOOKS#',
    ]);
    expectAllowed('poller', polling);
  });

  it('redelivery-sweep: a failed delivery asked for again, a successful one left alone, twice', async () => {
    const t = await context();
    const connection = await t.connect({}, ghToken);
    const target = { kind: 'repository' as const, repository: 'octocat/sweep' };
    const endpointId = `ep_sweep_${connection.id}`;
    host.github.hooks.set(4243, {
      id: 4243,
      owner: 'repos/octocat/sweep',
      name: 'web',
      active: true,
      events: ['issues'],
      config: { url: `http://x/webhooks/github/${endpointId}`, content_type: 'json', secret: 's' },
    });
    await t.secrets.put(secretNames.endpointSecret(endpointId), 's');
    await new EndpointRepo(t.ctx.store).create({
      id: endpointId,
      connectionId: connection.id,
      target,
      hookId: 4243,
      events: ['issues'],
      createdAt: new Date().toISOString(),
    });
    host.github.recordDelivery(4243, { guid: 'lost-1', event: 'issues', status_code: 503 });
    host.github.recordDelivery(4243, { guid: 'fine-1', event: 'issues', status_code: 202 });
    const during = recordInPlace(t.ctx.store);
    const touched = await during(async () => {
      expect(await sweepOnce(t.ctx)).toMatchObject({ endpoints: 1, redelivered: 1, failed: 0 });
      // The second round as AWS runs it: planned onto the work queue (the plan's start kept in the table), then a worker's batch under the hook's lease.
      const sent: OutgoingMessage[] = [];
      await planSweepRound(t.ctx, { sendBatch: async (m) => void sent.push(...m) });
      const batch = sent.map((m) => ({ messageId: m.id, body: m.body, receiptHandle: m.id, receiveCount: 1 }));
      expect((await sweepWorkItems(t.ctx, batch)).report).toMatchObject({ endpoints: 1, redelivered: 0, failed: 0 });
    });
    host.github.hooks.delete(4243);
    host.github.deliveries.clear();
    host.github.redeliveries.length = 0;
    expect(families(touched)).toEqual(['CONN#', 'DLV#', 'EP#', 'LEASE#', 'PLAN#', 'SWEEP#', 'gsi2:EPS', 'gsi2:EPS#']);
    expectAllowed('redelivery-sweep', touched);
  });

  it('tool-step: a code-host step and a collection-service write (its rate bucket)', async () => {
    const t = await context();
    // A token of its own: the platform-api flow's disconnect revoked the shared one.
    const own = 'ghp_tableAccessToolStepToken0000000000000';
    host.github.addUser(own, 'octocat');
    const gh = await t.connect({}, own);
    const cs = await t.connect(
      { provider: 'contentsnare', authMethod: 'oauth', accountLogin: 'ops@example.com' },
      'cs-access-token-table-access',
    );
    host.github.gists.set('octocat', []);
    const during = recordInPlace(t.ctx.store);
    const tools = [...allProviderTools().slice(0, 1), createContentsnareTools({ sleep: async () => undefined })];
    const touched = await during(async () => {
      const read = await invokeTool(t.ctx, { toolId: 'github.list_gists_for_user', connectionId: gh.id, input: {} }, tools);
      expect(read, JSON.stringify(read)).toMatchObject({ ok: true });
      const written = await invokeTool(
        t.ctx,
        { toolId: 'contentsnare.create_client', connectionId: cs.id, input: { name: 'C', email: 'c@example.com' } },
        tools,
      );
      expect(written, JSON.stringify(written)).toMatchObject({ ok: true });
      expect((await invokeTool(t.ctx, { toolId: 'github.list_gists_for_user', connectionId: 'conn_missing', input: {} }, tools)).ok).toBe(
        false,
      );
    });
    expect(families(touched)).toEqual(['CONN#', 'RATE#']);
    expectAllowed('tool-step', touched);
  });

  it("tool-step: an API call on hooks reads the product's own hooks (both providers)", async () => {
    const t = await context();
    const gh = await t.connect({}, 'ghp_tableAccessHooksToken000000000000000');
    const cs = await t.connect({ provider: 'contentsnare', authMethod: 'oauth', accountLogin: 'ops@example.com' }, 'cs-access-hooks');
    const during = recordInPlace(t.ctx.store);
    const tools = [...allProviderTools().slice(0, 1), createContentsnareTools({ sleep: async () => undefined })];
    const touched = await during(async () => {
      const code = { method: 'DELETE', endpoint: '/repos/octo/repo/hooks/1', dryRun: true };
      expect((await invokeTool(t.ctx, { toolId: 'github.api_call', connectionId: gh.id, input: code }, tools)).ok).toBe(true);
      const snare = { method: 'DELETE', endpoint: 'webhooks/wh_1', dryRun: true };
      expect((await invokeTool(t.ctx, { toolId: 'contentsnare.api_call', connectionId: cs.id, input: snare }, tools)).ok).toBe(true);
    });
    expect(families(touched)).toEqual(['CONN#', 'gsi2:CSHOOKS', 'gsi2:CSHOOKS#', 'gsi2:EPS', 'gsi2:EPS#']);
    expectAllowed('tool-step', touched);
  });

  it('tool-step: MCP with the platform key and a scoped key, a step called and a subscriptions resource read', async () => {
    const t = await context();
    const own = 'ghp_tableAccessMcpToken000000000000000000';
    host.github.addUser(own, 'octocat');
    const gh = await t.connect({}, own);
    host.github.gists.set('octocat', []);
    const key = await platformApi(t.ctx)('POST', '/keys', { label: 'agent', connections: [gh.id] });
    const during = recordInPlace(t.ctx.store);
    const router = createRouter(toolStepRoutes(t.ctx, allProviderTools()), {
      platformApiKey: t.ctx.platformApiKey,
      scopedKey: (presented) => resolveScopedKey(t.ctx, presented),
    });
    const rpc = async (bearer: string, method: string, params: Record<string, unknown>) => {
      const res = await router({
        method: 'POST',
        path: '/mcp',
        headers: { authorization: `Bearer ${bearer}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
        query: new URLSearchParams(),
        body: Buffer.from(JSON.stringify({ jsonrpc: '2.0', id: 1, method, params })),
      });
      const data = /^data: (.*)$/m.exec(String(res.body))?.[1];
      return JSON.parse(data ?? String(res.body));
    };
    const touched = await during(async () => {
      expect((await rpc(await t.ctx.platformApiKey(), 'tools/list', {})).result.tools.length).toBeGreaterThan(0);
      const called = await rpc(key.body.key, 'tools/call', { name: 'github_list_gists_for_user', arguments: {} });
      expect(called.result.isError, JSON.stringify(called)).toBeFalsy();
      const uri = `agent-integrations://connections/${gh.id}/subscriptions`;
      expect((await rpc(key.body.key, 'resources/read', { uri })).result.contents).toHaveLength(1);
    });
    expect(families(touched)).toEqual(['CONN#', 'KEY#', 'gsi2:CONNS', 'gsi2:CONNS#', 'gsi2:SUBS', 'gsi2:SUBS#']);
    expectAllowed('tool-step', touched);
  });

  it('every token user: a refresh across two workers (single flight), then a dead refresh token marking the connection', async () => {
    const during = recordInPlace(oauth.ctx.store);
    const expired = async () => {
      const refresh = oauth.fake.issueRefreshToken();
      const expiresAt = oauth.clock.now() - 1000;
      const c = await oauth.connect({ provider: 'contentsnare', authMethod: 'oauth', accountLogin: 'Agency', tokenExpiresAt: expiresAt });
      await writeStoredToken(oauth.ctx.secrets, c, { accessToken: `old-${refresh.slice(-8)}`, refreshToken: refresh, expiresAt });
      return c;
    };
    const live = await expired();
    const dead = await expired();
    // A refresh token the provider never issued: its answer is invalid_grant.
    await writeStoredToken(oauth.ctx.secrets, dead, {
      accessToken: 'old-dead',
      refreshToken: 'not-issued',
      expiresAt: dead.tokenExpiresAt,
    });
    const [a, b] = [oauth.refreshingProvider({ ownerId: 'a' }), oauth.refreshingProvider({ ownerId: 'b' })];
    const touched = await during(async () => {
      const tokens = await Promise.all(Array.from({ length: 6 }, (_, i) => (i % 2 ? a : b).accessToken(live)));
      expect(new Set(tokens).size).toBe(1);
      await expect(a.accessToken(dead)).rejects.toMatchObject({ code: 'reconnect_required' });
    });
    expect(families(touched)).toEqual(['CONN#', 'LEASE#']);
    // Dispatch too: it reads collection-service records back with the connection's token.
    for (const role of ['tool-step', 'poller', 'redelivery-sweep', 'platform-api', 'dispatch']) expectAllowed(role, touched);
  });

  it('oauth: authorize, start and callback for both providers, a reconnect, and a replayed callback', async () => {
    const during = recordInPlace(oauth.ctx.store);
    let first = '';
    const touched = await during(async () => {
      first = await oauthConnect('github');
      await oauthConnect('contentsnare');
      await oauthConnect('github', first);
      const back = await browseToCallback(oauth, 'github', { returnTo: `${appOrigin}/x` });
      expect((await oauth.callback(back)).status).toBe(302);
      // The state is consumed: the same callback again is refused.
      expect((await oauth.callback(back)).status).toBe(400);
    });
    expect(families(touched)).toEqual(expect.arrayContaining(['CONN#', 'STATE#']));
    expectAllowed('oauth', touched);
  });

  it("oauth, platform-api and tool-step: a connect page's session and flow, the end user's key, and a disconnect", async () => {
    const router = createRouter(oauthRoutes(oauth.ctx), { platformApiKey: oauth.ctx.platformApiKey });
    const call = async (method: string, target: string, headers: Record<string, string>, body = '') => {
      const u = new URL(target, oauth.ctx.config.publicUrl);
      return router({ method, path: u.pathname, headers, query: u.searchParams, body: Buffer.from(body) });
    };
    let connectionId = '';
    const onOauth = await recordInPlace(oauth.ctx.store)(async () => {
      const bearer = { authorization: `Bearer ${await oauth.ctx.platformApiKey()}`, 'content-type': 'application/json' };
      const made = await call('POST', '/connect/sessions', bearer, JSON.stringify({ endUserId: 'eu-1', returnTo: `${appOrigin}/x` }));
      const url = (JSON.parse(String(made.body)) as { url: string }).url;
      const csrf = /name="csrf" value="([^"]+)"/.exec(String((await call('GET', url, {})).body))?.[1] ?? '';
      const form = new URLSearchParams({ csrf, choice: 'github' }).toString();
      const chosen = await call('POST', url, { 'content-type': 'application/x-www-form-urlencoded' }, form);
      const back = await oauth.callback(await oauth.fake.browse(chosen.headers?.location ?? ''));
      connectionId = new URL(back.headers?.location ?? '').searchParams.get('connectionId') ?? '';
    });
    expect(families(onOauth)).toEqual(expect.arrayContaining(['CONNECT#', 'EUSR#', 'CONN#', 'STATE#']));
    expectAllowed('oauth', onOauth);
    const key = await platformApi(oauth.ctx)('POST', '/keys', { label: 'end user', endUserId: 'eu-1' });
    const resolve = () => resolveScopedKey(oauth.ctx, key.body.key as string);
    const onTools = await recordInPlace(oauth.ctx.store)(async () => {
      expect(await resolve()).toMatchObject({ connections: [connectionId] });
    });
    expectAllowed('tool-step', onTools);
    const onPlatform = await recordInPlace(oauth.ctx.store)(async () => {
      await resolve();
      expect((await platformApi(oauth.ctx)('DELETE', `/connections/${connectionId}`)).status).toBe(200);
    });
    expectAllowed('platform-api', onPlatform);
  });

  it('grants nothing unused: every declared pattern is met by a key some flow above touched (run with the whole file)', () => {
    const unused = Object.entries(tableAccessByRole).flatMap(([role, access]) =>
      (['table', 'gsi1', 'gsi2', 'gsi3'] as const).flatMap((part) =>
        (access[part] ?? [])
          // The App's mint lease and sealed token row: every token user may meet an App connection; the AWS-mode
          // suite (test/aws/github-app.test.ts) mints under the one and writes and reads the other over the wire with IAM enforced.
          .filter((pattern) => pattern !== appTokenLease && pattern !== appTokenRow)
          .filter(
            (pattern) =>
              !(recorded.get(role) ?? []).some((k) => {
                const m = /^(gsi[123]):(.*)$/s.exec(k);
                return (m ? m[1] : 'table') === part && matchesLeadingKey(pattern, m ? (m[2] as string) : k);
              }),
          )
          .map((pattern) => `${role}: ${part} ${pattern}`),
      ),
    );
    expect(unused).toEqual([]);
  });

  it('fails naming the role and key when a flow touches an undeclared family, and checks an index query against that index', () => {
    expect(disallowed('dispatch', ['EVT#e1', 'gsi2:SUBS'])).toEqual(['dispatch: gsi2:SUBS']);
    // A table item named like a listing partition is not allowed by the index's pattern.
    expect(disallowed('webhook-intake', ['ROUTE#ep#t'])).toEqual(['webhook-intake: ROUTE#ep#t']);
    expect(disallowed('webhook-intake', ['gsi2:KEYS'])).toEqual(['webhook-intake: gsi2:KEYS']);
  });
});

/** The OAuth round trip through the oauth function's routes; returns the connection id. */
function oauthConnect(provider: 'github' | 'contentsnare', connectionId?: string): Promise<string> {
  return oauthConnectionId(oauth, provider, { returnTo: `${appOrigin}/x`, ...(connectionId ? { connectionId } : {}) });
}
