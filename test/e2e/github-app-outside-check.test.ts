import { mkdtempSync, rmSync } from 'node:fs';
import { randomUUID } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import examples from '@octokit/webhooks-examples';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { githubTriggerIds as triggerIds, type TriggerId } from '../../shared/domain/triggers';
import { sourceFor } from '../../shared/subscriptions/trigger-rules';
import { triggerCatalog } from '../../shared/wiring/providers';
import { fullInstallation } from '../helpers/app-webhook';
import { FakeAgentRuntime } from '../helpers/fake-agent-runtime';
import { startFakeGitHubApp, type FakeGitHubApp } from '../helpers/fake-github-app';
import { freePort, startLocalProcess, type RunningLocal } from '../helpers/local-process';
import { httpApiCaller } from '../helpers/platform-api-caller';
import { until } from '../helpers/runtime-support';
import { examplePayload, sign, signSha1 } from '../helpers/signed-delivery';

const appOrigin = 'https://app.example.test';
const key = 'outside-check-platform-key-0123456789abcdef';
const webhookSecret = 'outside-check-app-webhook-secret-0123456789';
/** The organization the App is installed on, the repository its examples are about. */
const login = 'Codertocat';
/** The platform's user who connects (a member of the organization): mentions are of this user. */
const user = 'mona';
const repo = 'Codertocat/Hello-World';
const installationId = 61;

type Json = Record<string, any>;

/**
 * The documented example (@octokit/webhooks-examples) each webhook trigger is checked with,
 * changed only where the trigger needs what the examples never show (GitHub sends these too).
 * Triggers with no webhook (gists, watchers) are polled: they are not here.
 */
const webhookExamples: Partial<Record<TriggerId, { event: string; payload: () => Json }>> = {
  'github.new_repository': { event: 'repository', payload: () => examplePayload('repository', 'created') },
  'github.new_fork': { event: 'fork', payload: () => examplePayload('fork') },
  'github.new_star': { event: 'star', payload: () => examplePayload('star', 'created') },
  'github.new_tag': { event: 'create', payload: () => examplePayload('create') },
  'github.new_branch': { event: 'create', payload: () => ({ ...examplePayload('create'), ref_type: 'branch', ref: 'feature/login' }) },
  'github.new_issue': { event: 'issues', payload: () => examplePayload('issues', 'opened') },
  'github.updated_issue': { event: 'issues', payload: () => examplePayload('issues', 'edited') },
  'github.new_label_on_issue': { event: 'issues', payload: () => examplePayload('issues', 'labeled') },
  'github.new_pull_request': { event: 'pull_request', payload: () => examplePayload('pull_request', 'opened') },
  'github.updated_pull_request': { event: 'pull_request', payload: () => examplePayload('pull_request', 'synchronize') },
  'github.new_review_request': { event: 'pull_request', payload: () => examplePayload('pull_request', 'review_requested') },
  'github.new_pull_request_review': {
    event: 'pull_request_review',
    payload: () => {
      const p = examplePayload('pull_request_review', 'submitted') as Json;
      p.review = { ...p.review, state: 'approved', body: 'Looks good to me.' };
      return p;
    },
  },
  'github.new_comment': { event: 'issue_comment', payload: () => examplePayload('issue_comment', 'created') },
  'github.new_mention': {
    event: 'issue_comment',
    payload: () => {
      const p = examplePayload('issue_comment', 'created') as Json;
      p.comment.body = `Could you have a look, @${user}?`;
      return p;
    },
  },
  'github.new_commit': { event: 'push', payload: () => pushExample() },
  'github.new_push': { event: 'push', payload: () => pushExample() },
  'github.new_release': { event: 'release', payload: () => examplePayload('release', 'published') },
  'github.workflow_run_completed': { event: 'workflow_run', payload: () => examplePayload('workflow_run', 'completed') },
  'github.workflow_job_completed': { event: 'workflow_job', payload: () => examplePayload('workflow_job', 'completed') },
  'github.new_collaborator': { event: 'member', payload: () => examplePayload('member', 'added') },
  'github.project_item_status_changed': { event: 'projects_v2_item', payload: () => examplePayload('projects_v2_item', 'edited') },
  'github.new_card_in_column': { event: 'project_card', payload: () => examplePayload('project_card', 'created') },
  'github.new_discussion': { event: 'discussion', payload: () => examplePayload('discussion', 'created') },
  'github.new_discussion_comment': { event: 'discussion_comment', payload: () => examplePayload('discussion_comment', 'created') },
};

/**
 * The documented examples are about several repositories and organizations (Codertocat,
 * octo-org, Octocoders): each is sent as GitHub would send it for the installation's
 * repository, so every delivery names `Codertocat/Hello-World` and the organization `Codertocat`.
 */
function onInstalledRepository(payload: Json): Json {
  const fitted = { ...payload };
  if (fitted.repository) fitted.repository = structuredClone((examplePayload('issues', 'opened') as Json).repository);
  if (fitted.organization) fitted.organization = { ...fitted.organization, login };
  return fitted;
}

/** The fifth `push` example: one commit to a branch (the ones before it push tags or delete a branch). */
function pushExample(): Json {
  const push = examples.find((d) => d.name === 'push')?.examples[4];
  if (!push) throw new Error('no fifth push example');
  return structuredClone(push) as unknown as Json;
}

let gh: FakeGitHubApp;
let agent: FakeAgentRuntime;
let running: RunningLocal;
const dataDir = mkdtempSync(join(tmpdir(), 'github-app-outside-check-'));

/** An App webhook delivery as GitHub sends it: `installation` on it, the App's headers, signed with the App's webhook secret. */
function appRequest(event: string, payload: Json, withInstallation = true) {
  const body = Buffer.from(JSON.stringify(withInstallation ? { ...payload, installation: { id: installationId } } : payload), 'utf8');
  const headers: Record<string, string> = {
    'content-type': 'application/json',
    'user-agent': 'GitHub-Hookshot/044aadd',
    'x-github-event': event,
    'x-github-delivery': randomUUID(),
    'x-github-hook-id': '30',
    'x-github-hook-installation-target-type': 'integration',
    'x-github-hook-installation-target-id': String(gh.app.appId),
    'x-hub-signature': signSha1(webhookSecret, body),
    'x-hub-signature-256': sign(webhookSecret, body),
  };
  return { headers, body };
}

const post = (req: { headers: Record<string, string>; body: Buffer }) =>
  fetch(`${running.url}/webhooks/github/app`, { method: 'POST', headers: req.headers, body: req.body });

function appDelivery(event: string, payload: Json, withInstallation = true) {
  return post(appRequest(event, payload, withInstallation));
}

function targetOf(trigger: TriggerId): Record<string, string> {
  if (sourceFor(triggerCatalog, trigger, { kind: 'repository', repository: repo })) return { repository: repo };
  if (sourceFor(triggerCatalog, trigger, { kind: 'organization', organization: login })) return { organization: login };
  return {};
}

const errorLines = () =>
  running
    .output()
    .split('\n')
    .filter((l) => /"level":\s*"ERROR"/.test(l));

beforeAll(async () => {
  gh = await startFakeGitHubApp({
    other: (req) =>
      req.method === 'GET' && /^\/repos\/[^/]+\/[^/]+\/subscribers$/.test(req.path)
        ? { body: [] }
        : { status: 404, body: { message: 'Not Found' } },
  });
  gh.app.addInstallation({
    id: installationId,
    account: { login, id: 21031067, type: 'Organization' },
    repositorySelection: 'all',
    repositories: [repo],
    ...fullInstallation,
  });
  // The user who installs and connects owns the organization: an installation-wide connection.
  gh.app.setOrgRole(login, user, 'admin');
  agent = await FakeAgentRuntime.start();
  const port = await freePort();
  running = await startLocalProcess({
    DATA_DIR: dataDir,
    PORT: String(port),
    PUBLIC_URL: `http://127.0.0.1:${port}`,
    PLATFORM_API_KEY: key,
    DISPATCH_SIGNING_SECRET: 's'.repeat(40),
    ALLOWED_RETURN_ORIGINS: appOrigin,
    AGENT_RUNTIME_URL: agent.url,
    POLL_INTERVAL_SECONDS: '3600',
    SWEEP_INTERVAL_SECONDS: '1',
    ...gh.env(`http://127.0.0.1:${port}`),
    GITHUB_APP_WEBHOOK_SECRET: webhookSecret,
  });
}, 60_000);

afterAll(async () => {
  await running?.stop();
  await Promise.all([gh?.close(), agent?.close()]);
  rmSync(dataDir, { recursive: true, force: true });
});

/**
 * The GitHub App mode's "done when", checked from outside: `npm start` with the GITHUB_APP_*
 * settings pointed at a fake that plays GitHub as an App (the JWT checked with the App's public
 * key), a connection made through the install flow, every trigger subscribed, each webhook
 * trigger's documented example posted to the App's webhook signed with its secret (the polled
 * ones, which have no webhook, enqueued as `npm run trigger` does through `/admin/trigger`), a
 * tool step, then the installation deleted. Counted: events at the agent runtime, requests to
 * any `/hooks` path at the fake, JWTs refused, error lines in the runtime's log.
 */
describe('outside check: npm start with a GitHub App, GitHub played from its documentation', () => {
  const api = httpApiCaller(() => running.url, key);
  let connectionId = '';

  it('connects through the install flow, gets every trigger without a hook, and each documented example reaches its agent once', async () => {
    const started = await api('POST', '/oauth/github-app/authorize', { returnTo: `${appOrigin}/done`, label: login });
    expect(started.status).toBe(200);
    const start = await fetch(started.body.authorizeUrl as string, { redirect: 'manual' });
    const cookie = (start.headers.get('set-cookie') ?? '').split(';')[0] ?? '';
    const callback = gh.app.browse(start.headers.get('location') ?? '', { login: user, installationId });
    const back = await fetch(callback, { redirect: 'manual', headers: { cookie } });
    expect(back.status).toBe(302);
    connectionId = new URL(back.headers.get('location') ?? 'about:blank').searchParams.get('connectionId') ?? '';
    expect(connectionId).toMatch(/^conn_/);

    const agentOf = new Map<string, TriggerId>();
    for (const trigger of triggerIds) {
      const agentId = `agent-${trigger.slice('github.'.length)}`;
      const res = await api('POST', '/subscriptions', { connectionId, trigger, agentId, ...targetOf(trigger) });
      expect(res.status, `${trigger}: ${JSON.stringify(res.body)}`).toBe(201);
      agentOf.set(agentId, trigger);
    }
    expect(agentOf.size).toBe(26);

    // Each webhook trigger's documented example, once, as the App's webhook delivers it.
    const sent = new Set<string>();
    for (const trigger of triggerIds) {
      const example = webhookExamples[trigger];
      if (!example) continue;
      const payload = onInstalledRepository(example.payload());
      const bytes = JSON.stringify([example.event, payload]);
      if (sent.has(bytes)) continue; // one push example serves both commit and push triggers
      sent.add(bytes);
      const res = await appDelivery(example.event, payload);
      expect(res.status, trigger).toBe(202);
    }
    // Polled triggers (no webhook exists for them): enqueued as the poller would, as `npm run trigger` does.
    const polled = triggerIds.filter((t) => !webhookExamples[t]);
    expect(polled.sort()).toEqual(['github.new_gist', 'github.new_watcher']);
    for (const trigger of polled) expect((await api('POST', '/admin/trigger', { trigger })).body.kind).toBe('enqueued');

    // A miss is reported by the comparison below, which names the agents.
    await until('an event for every trigger', () => new Set(agent.events().map((b) => b.agentId)).size >= triggerIds.length, 30_000).catch(
      () => undefined,
    );
    const received = agent.events();
    expect([...new Set(received.map((b) => String(b.agentId)))].sort()).toEqual([...agentOf.keys()].sort());
    // Each event once.
    expect(new Set(received.map((b) => b.id)).size).toBe(received.length);
    const perAgent = new Map<string, number>();
    for (const b of received) perAgent.set(String(b.agentId), (perAgent.get(String(b.agentId)) ?? 0) + 1);
    expect(Object.fromEntries(perAgent)).toEqual(expectedCounts);
    expect(gh.server.requests.filter((r) => /\/hooks(\/|$|\?)/.test(r.path))).toEqual([]);
  }, 120_000);

  it('runs a tool step with an installation token', async () => {
    const res = await api('POST', '/tools/github.get_repository/invoke', { connectionId, input: { owner: login, repo: 'Hello-World' } });
    expect(res.body).toMatchObject({ ok: true, data: { full_name: repo } });
    const tokens = gh.requestsTo(`/repos/${repo}`).map((r) => String(r.headers.authorization ?? '').replace(/^(Bearer|token) /i, ''));
    expect(tokens).toEqual([expect.stringMatching(/^ghs_/)]);
    expect(gh.mints(installationId)).toBeGreaterThanOrEqual(1);
  });

  it("has the local sweep redeliver, once, a delivery GitHub logged as failed on the App's webhook, and it reaches its agent once", async () => {
    const payload = examplePayload('issues', 'opened') as Json;
    payload.issue.node_id = 'I_lost_while_down'; // its own bytes: not a replay of the first issue
    const lost = appRequest('issues', payload);
    const guid = lost.headers['x-github-delivery'] ?? '';
    gh.app.redeliver = async (first) => (first.guid === guid ? (await post(lost)).status : 0);
    // GitHub could not reach the intake (status 0): nothing of ours saw it.
    gh.app.recordHookDelivery({ guid, event: 'issues', action: 'opened', installationId, statusCode: 0 });
    const reached = () => agent.events().filter((b) => b.agentId === 'agent-new_issue');
    const before = reached().length;
    await until('the lost delivery at its agent', () => reached().length > before, 20_000);
    // A few more sweep rounds: nothing is asked for again.
    await new Promise((r) => setTimeout(r, 2500));
    expect(reached()).toHaveLength(before + 1);
    expect(gh.app.redeliveryRequests).toHaveLength(1);
    expect(gh.requestsTo('/app/hook/deliveries').every((r) => /^Bearer ey/.test(String(r.headers.authorization)))).toBe(true);
  }, 30_000);

  it('stops everything the installation fed once GitHub says it is deleted', async () => {
    const deleted = examplePayload('installation', 'deleted') as Json;
    deleted.installation.id = installationId;
    // GitHub no longer has it (404 on the read-back the deletion is checked against).
    gh.app.installations.delete(installationId);
    // Queued by the intake, applied by the dispatch consumer.
    expect((await appDelivery('installation', deleted, false)).status).toBe(202);
    await until('the deletion applied', async () => (await api('GET', `/connections/${connectionId}`)).body.status === 'revoked');
    expect((await api('GET', `/connections/${connectionId}`)).body.status).toBe('revoked');

    const before = agent.requests.length;
    const later = examplePayload('issues', 'opened') as Json;
    later.issue.node_id = 'I_after_delete';
    const res = await appDelivery('issues', later);
    expect(await res.json()).toEqual({ ok: true, accepted: 0 });
    await new Promise((r) => setTimeout(r, 1000));
    expect(agent.requests.length).toBe(before);

    const step = await api('POST', '/tools/github.get_repository/invoke', { connectionId, input: { owner: login, repo: 'Hello-World' } });
    expect(step.body).toMatchObject({
      ok: false,
      error: { code: 'reconnect_required', message: expect.stringMatching(/installation was removed/) },
    });
    // The refused step sent nothing to the code host.
    expect(gh.requestsTo(`/repos/${repo}`)).toHaveLength(1);
  });

  it('saw no hook created, no JWT refused and no error logged', () => {
    expect(gh.server.requests.filter((r) => /\/hooks(\/|$|\?)/.test(r.path))).toEqual([]);
    expect(gh.app.refusedJwts).toEqual([]);
    expect(errorLines()).toEqual([]);
  });
});

/**
 * Each trigger's agent gets its example's event once; the mention example is a comment too, so
 * the comment trigger's agent gets two (the plain comment and the one that mentions the user).
 */
const expectedCounts: Record<string, number> = {
  ...Object.fromEntries(triggerIds.map((t) => [`agent-${t.slice('github.'.length)}`, 1])),
  'agent-new_comment': 2,
};
