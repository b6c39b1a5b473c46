import { workingLifecycle } from '../helpers/app-lifecycle';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { routes as intakeRoutes } from '../../functions/webhook-intake/routes';
import { providerWebhooks } from '../../shared/wiring/provider-intake';
import { secretNames } from '../../shared/domain/model';
import { githubTools } from '../../shared/providers/github/tools';
import { createRouter } from '../../shared/http/router';
import { ConnectionRepo } from '../../shared/store/connection-repo';
import { invokeTool } from '../../shared/tools/invoke';
import { appShot, testAppSecret } from '../helpers/app-webhook';
import { appReturnOrigin, githubAppTestContext, type GitHubAppTestContext } from '../helpers/github-app-context';
import { platformApiCaller } from '../helpers/platform-api-caller';
import type { Shot } from '../helpers/seed';
import { examplePayload } from '../helpers/signed-delivery';

/**
 * Who a GitHub App connection acts as, from the side of someone who should not get in: an
 * organization member whom GitHub lists the installation to, but who cannot access every
 * repository it holds.
 */

const octoOrg = { login: 'octo-org', id: 7001, type: 'Organization' as const };
const open = 'octo-org/public';
const hidden = 'octo-org/secret';

const bearer = (r: { headers: Record<string, string | string[] | undefined> }) =>
  String(r.headers.authorization ?? '').replace(/^(Bearer|token) /i, '');

describe('a GitHub App connection acts with its user reach', () => {
  let t: GitHubAppTestContext;
  beforeEach(async () => {
    t = await githubAppTestContext({ GITHUB_APP_WEBHOOK_SECRET: testAppSecret });
    t.fake.app.addInstallation({
      id: 31,
      account: octoOrg,
      repositorySelection: 'all',
      repositories: [open, hidden],
      members: new Set(['mona', 'root']),
    });
    t.fake.app.setOrgRole('octo-org', 'mona', 'member');
    t.fake.app.setOrgRole('octo-org', 'root', 'admin');
    t.fake.app.userAccess.set('mona', new Set([open]));
  });
  afterEach(async () => {
    await t.stop();
  });

  async function connect(login: string, installationId = 31): Promise<string> {
    const done = await t.connectApp({ login, installationId }, { returnTo: `${appReturnOrigin}/done` });
    const id = new URL(done.headers?.location ?? 'http://x').searchParams.get('connectionId');
    if (!id) throw new Error(`connecting ${login} failed: ${done.headers?.location ?? String(done.body)}`);
    return id;
  }

  // A lifecycle delivery's queued job is worked as the dispatch consumer does, and its answer given.
  const deliver = (shot: Shot) =>
    workingLifecycle(t, async (s: Shot) => {
      const router = createRouter(intakeRoutes(t.ctx, providerWebhooks), { platformApiKey: t.ctx.platformApiKey });
      const res = await router({ method: 'POST', path: s.path, headers: s.headers, query: new URLSearchParams(), body: s.body });
      return { status: res.status, body: JSON.parse(String(res.body)) as Record<string, any> };
    })(shot);

  const issueIn = (repository: string) => {
    const p = examplePayload('issues', 'opened') as Record<string, any>;
    p.repository.full_name = repository;
    p.repository.name = repository.split('/')[1];
    p.repository.owner.login = 'octo-org';
    p.issue.node_id = `I_${Math.random().toString(36).slice(2)}`;
    return appShot('issues', p, { installationId: 31 });
  };

  it('an organization member on an all-repositories installation cannot reach a private repository they cannot access: no step, api_call, poll or trigger', async () => {
    const id = await connect('mona');
    const api = platformApiCaller(t.ctx);
    const listed = (await api('GET', '/connections')).body.connections as Array<Record<string, unknown>>;
    expect(listed.find((c) => c.id === id)).toMatchObject({ reach: 'user', repositories: [open] });

    const step = (toolId: string, input: Record<string, unknown>) => invokeTool(t.ctx, { toolId, connectionId: id, input }, [githubTools]);
    expect(await step('github.get_repository', { owner: 'octo-org', repo: 'secret' })).toMatchObject({
      ok: false,
      error: { code: 'forbidden' },
    });
    for (const endpoint of [`/repos/${hidden}`, '/repositories/9001', `/repos/${hidden}/collaborators/mona`]) {
      const method = endpoint.endsWith('/mona') ? 'PUT' : 'GET';
      expect(await step('github.api_call', { method, endpoint }), endpoint).toMatchObject({
        ok: false,
        error: { code: 'forbidden', details: { reason: 'outside_allow_list' } },
      });
    }
    expect(t.fake.requestsTo(/secret|\/repositories\//)).toEqual([]);

    // Polled and webhook triggers on it are refused at subscribe.
    for (const trigger of ['github.new_watcher', 'github.new_issue']) {
      const res = await api('POST', '/subscriptions', { connectionId: id, trigger, agentId: 'agent-mona', repository: hidden });
      expect(res.status, trigger).toBe(403);
    }
    // An organization-wide subscription hears the repositories the user can access, never the others.
    const org = await api('POST', '/subscriptions', {
      connectionId: id,
      trigger: 'github.new_issue',
      agentId: 'agent-mona',
      organization: 'octo-org',
    });
    expect(org.status).toBe(201);
    expect((await deliver(issueIn(hidden))).body).toEqual({ ok: true, accepted: 0 });
    expect((await deliver(issueIn(open))).body).toEqual({ ok: true, accepted: 1 });

    // What it may do runs with the user's own token: GitHub grants it only the user's access.
    expect(await step('github.get_repository', { owner: 'octo-org', repo: 'public' })).toMatchObject({ ok: true });
    expect(t.fake.requestsTo(`/repos/${open}`).map(bearer)).toEqual([expect.stringMatching(/^ghu_/)]);
    expect(t.fake.mints(31)).toBe(0);
  });

  it("an owner of the installation's organization gets an installation-wide connection, which says so", async () => {
    const id = await connect('root');
    const c = await new ConnectionRepo(t.ctx.store).get(id);
    expect(c).toMatchObject({ reach: 'installation', repositories: [] });
    expect(
      await invokeTool(t.ctx, { toolId: 'github.get_repository', connectionId: id, input: { owner: 'octo-org', repo: 'secret' } }, [
        githubTools,
      ]),
    ).toMatchObject({ ok: true });
    expect(t.fake.requestsTo(`/repos/${hidden}`).map(bearer)).toEqual([expect.stringMatching(/^ghs_/)]);
  });

  it('a member whose membership GitHub does not show as admin is not installation-wide, even on a selection of repositories', async () => {
    t.fake.app.installations.get(31)!.repositorySelection = 'selected';
    t.fake.app.orgRoles.get('octo-org')?.delete('mona');
    const id = await connect('mona');
    expect(await new ConnectionRepo(t.ctx.store).get(id)).toMatchObject({ reach: 'user', repositories: [open] });
  });

  it("a GitHub App connection's allow-list can be narrowed through the API, never widened past its user's reach", async () => {
    const id = await connect('mona');
    const api = platformApiCaller(t.ctx);
    const wider = await api('PATCH', `/connections/${id}`, { repositories: [open, hidden] });
    expect(wider.status).toBe(403);
    expect(wider.body.error.details.fields).toEqual([{ field: 'repositories', message: "outside the connection's reach" }]);
    expect((await api('PATCH', `/connections/${id}`, { repositories: [] })).body).toMatchObject({ repositories: [] });
    // Narrowed to none, it reaches none: an empty list is not "all" on a connection acting for its user.
    expect((await api('PATCH', `/connections/${id}`, { repositories: [open] })).status).toBe(403);
  });

  it('a repository added to the installation joins only the allow-lists of users who can access it; removed ones leave every list at once', async () => {
    const installation = t.fake.app.installations.get(31)!;
    installation.repositorySelection = 'selected';
    installation.repositories = [open];
    installation.members.add('hubot');
    installation.members.add('dave');
    t.fake.app.userAccess.set('mona', new Set([open, 'octo-org/new-one']));
    t.fake.app.userAccess.set('hubot', new Set([open]));
    const mona = await connect('mona');
    const hubot = await connect('hubot');
    const dave = await connect('dave');
    // dave's token is gone (and cannot be refreshed): his list may shrink, never grow.
    await t.ctx.secrets.delete(secretNames.connectionToken({ id: dave, provider: 'github' }));
    const repos = async (id: string) => (await new ConnectionRepo(t.ctx.store).get(id))?.repositories;
    expect([await repos(mona), await repos(hubot), await repos(dave)]).toEqual([[open], [open], [open]]);

    installation.repositories.push('octo-org/new-one');
    const added = examplePayload('installation_repositories', 'added') as Record<string, any>;
    added.installation.id = 31;
    added.repository_selection = 'selected';
    added.repositories_added = [{ ...added.repositories_added[0], full_name: 'octo-org/new-one' }];
    expect((await deliver(appShot('installation_repositories', added, { installationId: null }))).status).toBe(200);
    expect(await repos(mona)).toEqual([open, 'octo-org/new-one']);
    expect(await repos(hubot)).toEqual([open]);
    expect(await repos(dave)).toEqual([open]);

    const removed = examplePayload('installation_repositories', 'removed') as Record<string, any>;
    removed.installation.id = 31;
    removed.repository_selection = 'selected';
    removed.repositories_removed = [{ ...removed.repositories_removed[0], full_name: open }];
    expect((await deliver(appShot('installation_repositories', removed, { installationId: null }))).body).toMatchObject({ changed: 3 });
    expect([await repos(mona), await repos(hubot), await repos(dave)]).toEqual([['octo-org/new-one'], [], []]);
  });
});
