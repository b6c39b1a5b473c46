import { workingLifecycle, workQueuedLifecycle } from '../helpers/app-lifecycle';
import { randomUUID } from 'node:crypto';
import { beforeEach, describe, expect, it } from 'vitest';
import { routes as intakeRoutes } from '../../functions/webhook-intake/routes';
import { providerWebhooks } from '../../shared/wiring/provider-intake';
import { githubTriggerIds as triggerIds, type TriggerId } from '../../shared/domain/triggers';
import { createRouter } from '../../shared/http/router';
import { ConnectionRepo } from '../../shared/store/connection-repo';
import { keys } from '../../shared/store/table-design';
import { sourceFor } from '../../shared/subscriptions/trigger-rules';
import { triggerCatalog } from '../../shared/wiring/providers';
import { appEnv, appShot, storeAppConnection, storeAppSubscription } from '../helpers/app-webhook';
import { useFakeCodeHost } from '../helpers/code-host-setup';
import { consumerPass } from '../helpers/consumer-pass';
import { FakeAgentRuntime } from '../helpers/fake-agent-runtime';
import { FakeGitHubAppWorld } from '../helpers/fake-github-app';
import { startFakeHttp } from '../helpers/fake-http';
import { platformApiCaller } from '../helpers/platform-api-caller';
import type { Shot } from '../helpers/seed';
import { examplePayload } from '../helpers/signed-delivery';
import type { TestContext } from '../helpers/test-context';

const userToken = 'ghu_appWebhookTestUserToken000000000000000';
/** GitHub's App side (its JWT-only `/app/...` routes and the users' `/user/installations...`), in front of the fake code host. */
const gitHubApp = new FakeGitHubAppWorld({ appId: Number(appEnv.GITHUB_APP_ID) });
const host = useFakeCodeHost(
  { [userToken]: 'Codertocat' },
  { env: { ...appEnv, GITHUB_APP_PRIVATE_KEY: gitHubApp.privateKeyPem, PUBLIC_URL: 'https://hooks.example.test' } },
);
beforeEach(() => {
  gitHubApp.installations.clear();
  host.github.before = (req) => (/^\/(app|user\/installations)\//.test(req.path) ? gitHubApp.handle(req) : undefined);
});

/** The intake's routes in-process, answering status and body; a lifecycle delivery's queued job is worked, and its answer given. */
function appCaller(t: TestContext): (shot: Shot) => Promise<{ status: number; body: Record<string, any> }> {
  const ctx = t.ctx;
  const router = createRouter(intakeRoutes(ctx, providerWebhooks), { platformApiKey: ctx.platformApiKey });
  return workingLifecycle(t, async (shot) => {
    const res = await router({ method: 'POST', path: shot.path, headers: shot.headers, query: new URLSearchParams(), body: shot.body });
    return { status: res.status, body: JSON.parse(String(res.body)) as Record<string, any> };
  });
}

const repo = 'Codertocat/Hello-World';
/** The real `issues.opened` example, tagged so that no two deliveries share their bytes (a replay is a duplicate). */
const issueOpened = () => {
  const p = examplePayload('issues', 'opened') as Record<string, any>;
  p.issue.node_id = `I_${randomUUID()}`;
  return p;
};

async function queued(t: TestContext) {
  const messages = await t.receiveAll(1000);
  return messages.map((m) => JSON.parse(m.body) as { subscriptionId: string; connectionId: string; agentId: string });
}

describe('the GitHub App webhook (POST /webhooks/github/app)', () => {
  it('refuses a delivery signed with another secret (401) and stores and queues nothing', async () => {
    const t = await host.context();
    const c = await storeAppConnection(t.ctx, { installationId: 2, account: 'Codertocat' });
    await storeAppSubscription(t.ctx, c, 'github.new_issue', repo, 'agent-1');
    const shot = appShot('issues', issueOpened(), { installationId: 2, secret: 'not-the-app-secret' });
    const answer = await appCaller(t)(shot);
    expect(answer.status).toBe(401);
    expect(answer.body.error.code).toBe('invalid_signature');
    expect(await queued(t)).toEqual([]);
    expect(await t.ctx.store.get(keys.deliveryClaim(keys.appRouteId(2), shot.headers['x-github-delivery']!))).toBeUndefined();
    expect(t.metrics.counts.get('webhook_refused|reason=bad_signature')).toBe(1);
  });

  it('checks the signature on the raw bytes: the same JSON re-encoded after signing is refused', async () => {
    const t = await host.context();
    const c = await storeAppConnection(t.ctx, { installationId: 2, account: 'Codertocat' });
    await storeAppSubscription(t.ctx, c, 'github.new_issue', repo, 'agent-1');
    const shot = appShot('issues', issueOpened(), { installationId: 2 });
    const reencoded = Buffer.from(JSON.stringify(JSON.parse(shot.body.toString('utf8')), null, 2), 'utf8');
    expect((await appCaller(t)({ ...shot, body: reencoded })).status).toBe(401);
    expect(await queued(t)).toEqual([]);
    expect((await appCaller(t)(shot)).status).toBe(202);
  });

  it('is not found when no GitHub App is configured', async () => {
    const t = await host.context({ GITHUB_APP_ID: undefined, GITHUB_APP_SLUG: undefined, GITHUB_APP_CLIENT_ID: undefined });
    const answer = await appCaller(t)(appShot('issues', issueOpened(), { installationId: 2 }));
    expect(answer.status).toBe(404);
  });

  it('routes by installation: an event of one installation never reaches the connections of another', async () => {
    const t = await host.context();
    const mine = await storeAppConnection(t.ctx, { installationId: 2, account: 'Codertocat' });
    const other = await storeAppConnection(t.ctx, { installationId: 3, account: 'Codertocat' });
    const wanted = await storeAppSubscription(t.ctx, mine, 'github.new_issue', repo, 'agent-mine');
    await storeAppSubscription(t.ctx, other, 'github.new_issue', repo, 'agent-other');
    const answer = await appCaller(t)(appShot('issues', issueOpened(), { installationId: 2 }));
    expect(answer).toEqual({ status: 202, body: { ok: true, accepted: 1 } });
    expect((await queued(t)).map((e) => e.subscriptionId)).toEqual([wanted.id]);
    // An installation nobody connected through is answered 2xx (nothing to retry) and reaches nobody.
    expect((await appCaller(t)(appShot('issues', issueOpened(), { installationId: 99 }))).body).toEqual({ ok: true, accepted: 0 });
    expect(await queued(t)).toEqual([]);
  });

  it('reaches every connection of one installation once each, and a redelivery reaches none again', async () => {
    const t = await host.context();
    const subs = [];
    for (let i = 0; i < 3; i++) {
      const c = await storeAppConnection(t.ctx, { installationId: 2, account: 'Codertocat', login: `user${i}` });
      subs.push(await storeAppSubscription(t.ctx, c, 'github.new_issue', repo, `agent-${i}-a`));
      subs.push(await storeAppSubscription(t.ctx, c, 'github.new_issue', repo, `agent-${i}-b`));
    }
    const call = appCaller(t);
    const shot = appShot('issues', issueOpened(), { installationId: 2 });
    expect((await call(shot)).body).toEqual({ ok: true, accepted: 6 });
    expect((await call(shot)).body).toEqual({ ok: true, duplicate: true });
    const events = await queued(t);
    expect(events.map((e) => e.subscriptionId).sort()).toEqual(subs.map((s) => s.id).sort());
    for (const e of events) expect(subs.find((s) => s.id === e.subscriptionId)?.connectionId).toBe(e.connectionId);
  });

  it("maps each connection with its own account: a mention reaches only the mentioned user's connection", async () => {
    const t = await host.context();
    const alice = await storeAppConnection(t.ctx, { installationId: 2, account: 'Codertocat', login: 'alice' });
    const bob = await storeAppConnection(t.ctx, { installationId: 2, account: 'Codertocat', login: 'bob' });
    const aliceSub = await storeAppSubscription(t.ctx, alice, 'github.new_mention', repo, 'agent-alice');
    await storeAppSubscription(t.ctx, bob, 'github.new_mention', repo, 'agent-bob');
    const payload = issueOpened();
    payload.issue.body = 'Could @alice have a look?';
    expect((await appCaller(t)(appShot('issues', payload, { installationId: 2 }))).body).toEqual({ ok: true, accepted: 1 });
    expect((await queued(t)).map((e) => e.subscriptionId)).toEqual([aliceSub.id]);
  });

  it('refuses a signed delivery that names no installation, naming the field', async () => {
    const t = await host.context();
    const answer = await appCaller(t)(appShot('issues', issueOpened(), { installationId: null }));
    expect(answer.status).toBe(400);
    expect(answer.body.error.message).toContain('installation.id');
  });
});

describe('the installation lifecycle', () => {
  const installationEvent = (action: string, id = 2) => {
    const p = examplePayload('installation', action);
    (p.installation as Record<string, unknown>).id = id;
    return p;
  };

  it('deleted: the connections are revoked, their deliveries reach nobody and events already queued are not delivered', async () => {
    const runtime = await FakeAgentRuntime.start();
    try {
      const t = await host.context({ AGENT_RUNTIME_URL: runtime.url });
      const c = await storeAppConnection(t.ctx, { installationId: 2, account: 'Codertocat' });
      const untouched = await storeAppConnection(t.ctx, { installationId: 3, account: 'Codertocat' });
      await storeAppSubscription(t.ctx, c, 'github.new_issue', repo, 'agent-1');
      const call = appCaller(t);
      expect((await call(appShot('issues', issueOpened(), { installationId: 2 }))).body.accepted).toBe(1);
      const deleted = installationEvent('deleted');
      expect((await call(appShot('installation', deleted, { installationId: null }))).body).toMatchObject({ ok: true, changed: 1 });
      const repoOf = new ConnectionRepo(t.ctx.store);
      expect((await repoOf.get(c.id))?.status).toBe('revoked');
      expect((await repoOf.get(untouched.id))?.status).toBe('connected');
      // Queued before the deletion: dropped at dispatch.
      await consumerPass(t.ctx, t.queues.queue);
      expect(runtime.requests).toEqual([]);
      expect(t.metrics.counts.get('dispatch_connection_inactive')).toBe(1);
      expect((await call(appShot('issues', issueOpened(), { installationId: 2 }))).body).toEqual({ ok: true, accepted: 0 });
      expect(await queued(t)).toEqual([]);
    } finally {
      await runtime.close();
    }
  });

  it('suspend pauses the connections, unsuspend resumes them', async () => {
    const t = await host.context();
    const c = await storeAppConnection(t.ctx, { installationId: 2, account: 'Codertocat' });
    await storeAppSubscription(t.ctx, c, 'github.new_issue', repo, 'agent-1');
    const call = appCaller(t);
    // GitHub has it suspended when the event is read back, then no longer.
    const upstream = gitHubApp.addInstallation({
      id: 2,
      account: { login: 'Codertocat', id: 1002, type: 'Organization' },
      suspended: true,
    });
    await call(appShot('installation', installationEvent('suspend'), { installationId: null }));
    expect((await new ConnectionRepo(t.ctx.store).get(c.id))?.status).toBe('suspended');
    expect((await call(appShot('issues', issueOpened(), { installationId: 2 }))).body.accepted).toBe(0);
    upstream.suspended = false;
    await call(appShot('installation', installationEvent('unsuspend'), { installationId: null }));
    const resumed = await new ConnectionRepo(t.ctx.store).get(c.id);
    expect(resumed?.status).toBe('connected');
    expect(resumed?.statusReason).toBeUndefined();
    expect((await call(appShot('issues', issueOpened(), { installationId: 2 }))).body.accepted).toBe(1);
  });

  it('new_permissions_accepted keeps the permissions and events the owner accepted', async () => {
    const t = await host.context();
    const c = await storeAppConnection(t.ctx, {
      installationId: 2,
      account: 'Codertocat',
      installation: { permissions: { metadata: 'read' }, events: [] },
    });
    const accepted = installationEvent('new_permissions_accepted');
    const sent = accepted.installation as { permissions: Record<string, string>; events: string[] };
    await appCaller(t)(appShot('installation', accepted, { installationId: null }));
    const after = await new ConnectionRepo(t.ctx.store).get(c.id);
    expect(after?.installation?.permissions).toEqual(sent.permissions);
    expect(after?.installation?.events).toEqual(sent.events);
  });

  it('a repository removed from the installation leaves the allow-list and its subscriptions get no more events; one added joins it', async () => {
    const t = await host.context();
    gitHubApp.addInstallation({
      id: 2,
      account: { login: 'Codertocat', id: 1002, type: 'Organization' },
      repositorySelection: 'selected',
      repositories: [repo],
      members: new Set(['octocat']),
    });
    const c = await storeAppConnection(
      t.ctx,
      {
        installationId: 2,
        account: 'Codertocat',
        installation: { repositorySelection: 'selected' },
        repositories: [repo, 'Codertocat/Other'],
      },
      gitHubApp.issueUserToken('octocat').accessToken,
    );
    await storeAppSubscription(t.ctx, c, 'github.new_issue', repo, 'agent-1');
    const call = appCaller(t);
    const removed = examplePayload('installation_repositories', 'removed') as Record<string, any>;
    removed.installation.id = 2;
    removed.repositories_removed = [{ ...removed.repositories_removed[0], full_name: repo }];
    expect((await call(appShot('installation_repositories', removed, { installationId: null }))).body).toMatchObject({ changed: 1 });
    expect((await new ConnectionRepo(t.ctx.store).get(c.id))?.repositories).toEqual(['Codertocat/Other']);
    expect((await call(appShot('issues', issueOpened(), { installationId: 2 }))).body.accepted).toBe(0);
    // Every repository removed from a selection leaves none allowed (an empty allow-list is not "all" here).
    const last = structuredClone(removed);
    last.repositories_removed = [{ ...removed.repositories_removed[0], full_name: 'Codertocat/Other' }];
    await call(appShot('installation_repositories', last, { installationId: null }));
    expect((await new ConnectionRepo(t.ctx.store).get(c.id))?.repositories).toEqual([]);
    expect((await call(appShot('issues', issueOpened(), { installationId: 2 }))).body.accepted).toBe(0);
    const added = examplePayload('installation_repositories', 'added') as Record<string, any>;
    added.installation.id = 2;
    added.repositories_added = [{ ...added.repositories_added[0], full_name: repo }];
    await call(appShot('installation_repositories', added, { installationId: null }));
    expect((await new ConnectionRepo(t.ctx.store).get(c.id))?.repositories).toEqual([repo]);
    expect((await call(appShot('issues', issueOpened(), { installationId: 2 }))).body.accepted).toBe(1);
  });

  it('from all repositories to selected ones: the whole list is read from the code host, page by page; a failed read changes nothing', async () => {
    const listed = Array.from({ length: 150 }, (_, i) => `Codertocat/repo-${i}`);
    // The code host failing first, then answering as documented (`GET /installation/repositories`, paged).
    const fake = await startFakeHttp(() => ({ status: 502, body: { message: 'Server Error' } }));
    try {
      const t = await host.context({ GITHUB_API_URL: fake.url });
      const c = await storeAppConnection(t.ctx, { installationId: 2, account: 'Codertocat' });
      const call = appCaller(t);
      const removed = examplePayload('installation_repositories', 'removed') as Record<string, any>;
      removed.installation.id = 2;
      removed.repository_selection = 'selected';
      removed.repositories_removed = [{ ...removed.repositories_removed[0], full_name: repo }];
      expect((await call(appShot('installation_repositories', removed, { installationId: null }))).status).toBe(503);
      expect(await new ConnectionRepo(t.ctx.store).get(c.id)).toMatchObject({
        repositories: [],
        installation: { repositorySelection: 'all' },
      });
      fake.setHandler((req) => {
        const page = Number(req.query.get('page') ?? '1');
        const repositories = listed.slice((page - 1) * 100, page * 100).map((full_name) => ({ full_name }));
        return { body: { total_count: listed.length, repository_selection: 'selected', repositories } };
      });
      // The delivery's queued job is tried again.
      expect((await workQueuedLifecycle(t)).body).toMatchObject({ changed: 1 });
      const after = await new ConnectionRepo(t.ctx.store).get(c.id);
      expect(after?.installation?.repositorySelection).toBe('selected');
      expect(after?.repositories).toEqual(listed);
      expect(fake.requests.filter((r) => r.path === '/installation/repositories').map((r) => r.query.get('page'))).toEqual(['1', '1', '2']);
    } finally {
      await fake.close();
    }
  });

  it('github_app_authorization revoked: the user connections need reconnecting, and their webhook triggers still arrive', async () => {
    const t = await host.context();
    const revoked = examplePayload('github_app_authorization', 'revoked') as { sender: { id: number } };
    const c = await storeAppConnection(t.ctx, { installationId: 2, account: 'Codertocat', userId: String(revoked.sender.id) });
    const someoneElse = await storeAppConnection(t.ctx, { installationId: 2, account: 'Codertocat', userId: '424242' });
    await storeAppSubscription(t.ctx, c, 'github.new_issue', repo, 'agent-1');
    const call = appCaller(t);
    expect((await call(appShot('github_app_authorization', revoked, { installationId: null }))).body).toMatchObject({ changed: 1 });
    expect((await new ConnectionRepo(t.ctx.store).get(c.id))?.status).toBe('reconnect_required');
    expect((await new ConnectionRepo(t.ctx.store).get(someoneElse.id))?.status).toBe('connected');
    expect((await call(appShot('issues', issueOpened(), { installationId: 2 }))).body.accepted).toBe(1);
  });
});

/** A target each trigger takes: the repository, else the organization, else the account. */
function targetOf(trigger: TriggerId): Record<string, string> {
  if (sourceFor(triggerCatalog, trigger, { kind: 'repository', repository: repo })) return { repository: repo };
  if (sourceFor(triggerCatalog, trigger, { kind: 'organization', organization: 'Codertocat' })) return { organization: 'Codertocat' };
  return {};
}

describe('subscribing on a github_app connection', () => {
  it('creates no hook for any of the 26 triggers: webhook triggers only add routes, polled ones poll', async () => {
    const t = await host.context();
    const c = await storeAppConnection(t.ctx, { installationId: 2, account: 'Codertocat', login: 'Codertocat' }, userToken);
    host.github.watchers.set(repo, []);
    const api = platformApiCaller(t.ctx);
    const made = [];
    for (const trigger of triggerIds) {
      const res = await api('POST', '/subscriptions', { connectionId: c.id, trigger, agentId: 'agent-all', ...targetOf(trigger) });
      expect(res.status, `${trigger}: ${JSON.stringify(res.body)}`).toBe(201);
      made.push(res.body);
    }
    expect(made).toHaveLength(26);
    expect(host.github.hooks.size).toBe(0);
    expect(host.github.requests.filter((r) => r.path.includes('/hooks'))).toEqual([]);
    for (const s of made) {
      if (s.delivery === 'webhook') expect(s).toMatchObject({ installationId: 2 });
      expect(s.endpointId).toBeUndefined();
    }
    expect(
      made
        .filter((s) => s.delivery === 'polling')
        .map((s) => s.trigger)
        .sort(),
    ).toEqual(['github.new_gist', 'github.new_watcher']);
  });

  it('answers forbidden naming the missing permission and event when the installation lacks them', async () => {
    const t = await host.context();
    const c = await storeAppConnection(t.ctx, {
      installationId: 2,
      account: 'Codertocat',
      installation: { permissions: { metadata: 'read', contents: 'read' }, events: ['push'] },
    });
    const api = platformApiCaller(t.ctx);
    const res = await api('POST', '/subscriptions', { connectionId: c.id, trigger: 'github.new_issue', agentId: 'a', repository: repo });
    expect(res.status).toBe(403);
    expect(res.body.error.code).toBe('forbidden');
    expect(res.body.error.message).toContain('permission issues');
    expect(res.body.error.message).toContain('"issues" event subscribed');
    expect(res.body.error.details).toMatchObject({ missingPermissions: ['issues'], missingEvents: ['issues'] });
    // A repository outside the installation's account is refused naming the field.
    const outside = await api('POST', '/subscriptions', {
      connectionId: c.id,
      trigger: 'github.new_push',
      agentId: 'a',
      repository: 'someone/else',
    });
    expect(outside.status).toBe(403);
    expect(outside.body.error.message).toContain('repository');
    // What it can receive it gets, with no hook.
    const push = await api('POST', '/subscriptions', { connectionId: c.id, trigger: 'github.new_push', agentId: 'a', repository: repo });
    expect(push.status).toBe(201);
    expect(host.github.hooks.size).toBe(0);
  });

  it('refuses subscribing on a deleted installation', async () => {
    const t = await host.context();
    const c = await storeAppConnection(t.ctx, { installationId: 2, account: 'Codertocat' });
    await new ConnectionRepo(t.ctx.store).update(c.id, (x) => ({ ...x, status: 'revoked' }));
    const res = await platformApiCaller(t.ctx)('POST', '/subscriptions', {
      connectionId: c.id,
      trigger: 'github.new_issue',
      agentId: 'a',
      repository: repo,
    });
    expect(res.status).toBe(403);
    expect(res.body.error.message).toContain('deleted');
  });
});
