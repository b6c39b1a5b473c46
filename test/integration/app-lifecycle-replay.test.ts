import { workingLifecycle, workQueuedLifecycle } from '../helpers/app-lifecycle';
import { consumerPass } from '../helpers/consumer-pass';
import type { TestContext } from '../helpers/test-context';
import { beforeEach, describe, expect, it } from 'vitest';
import { routes as intakeRoutes } from '../../functions/webhook-intake/routes';
import { providerWebhooks } from '../../shared/wiring/provider-intake';
import { createRouter } from '../../shared/http/router';
import { ConnectionRepo } from '../../shared/store/connection-repo';
import { appEnv, appShot, storeAppConnection } from '../helpers/app-webhook';
import { useFakeCodeHost } from '../helpers/code-host-setup';
import { FakeGitHubAppWorld } from '../helpers/fake-github-app';
import type { Shot } from '../helpers/seed';
import { examplePayload } from '../helpers/signed-delivery';

/**
 * The App's lifecycle deliveries (`installation`, `installation_repositories`,
 * `github_app_authorization`) from the side of someone holding one old signed body: it is
 * applied once, and a destructive one only when GitHub, read back, agrees.
 */

const gitHubApp = new FakeGitHubAppWorld({ appId: Number(appEnv.GITHUB_APP_ID) });
const host = useFakeCodeHost({}, { env: { ...appEnv, GITHUB_APP_PRIVATE_KEY: gitHubApp.privateKeyPem } });
beforeEach(() => {
  gitHubApp.installations.clear();
  host.github.before = (req) => (/^\/(app|user\/installations)\//.test(req.path) ? gitHubApp.handle(req) : undefined);
});

/** The intake in-process; a lifecycle delivery's queued job is worked as the dispatch consumer does, and its answer given. */
function caller(t: TestContext): (shot: Shot) => Promise<{ status: number; body: Record<string, any> }> {
  const ctx = t.ctx;
  const router = createRouter(intakeRoutes(ctx, providerWebhooks), { platformApiKey: ctx.platformApiKey });
  return workingLifecycle(t, async (shot) => {
    const res = await router({ method: 'POST', path: shot.path, headers: shot.headers, query: new URLSearchParams(), body: shot.body });
    return { status: res.status, body: JSON.parse(String(res.body)) as Record<string, any> };
  });
}

const account = { login: 'Codertocat', id: 1002, type: 'Organization' as const };

function installationBody(action: string, id = 2): Record<string, any> {
  const p = examplePayload('installation', action) as Record<string, any>;
  p.installation.id = id;
  return p;
}

/** The same signed bytes under a new delivery id: what anyone who saw one delivery can send again. */
function replayOf(shot: Shot, guid: string): Shot {
  return { ...shot, headers: { ...shot.headers, 'x-github-delivery': guid } };
}

describe('App lifecycle deliveries are applied once', () => {
  it('a replayed installation.deleted body does nothing the second time', async () => {
    const t = await host.context();
    const call = caller(t);
    const first = await storeAppConnection(t.ctx, { installationId: 2, account: 'Codertocat' });
    const deleted = appShot('installation', installationBody('deleted'), { installationId: null });
    // GitHub has no installation 2 any more: the deletion is confirmed.
    expect((await call(deleted)).body).toMatchObject({ ok: true, changed: 1 });
    expect((await new ConnectionRepo(t.ctx.store).get(first.id))?.status).toBe('revoked');

    const later = await storeAppConnection(t.ctx, { installationId: 2, account: 'Codertocat', login: 'hubot' });
    expect((await call(replayOf(deleted, 'f0000000-0000-4000-8000-000000000001'))).body).toEqual({ ok: true, duplicate: true });
    expect((await call(deleted)).body).toEqual({ ok: true, duplicate: true });
    expect((await new ConnectionRepo(t.ctx.store).get(later.id))?.status).toBe('connected');
    expect(t.metrics.counts.get('webhook_replay')).toBe(1);
  });

  it('a replayed installation_repositories removed body does not take away a repository added since', async () => {
    const t = await host.context();
    const call = caller(t);
    gitHubApp.addInstallation({
      id: 2,
      account,
      repositorySelection: 'selected',
      repositories: ['Codertocat/Hello-World', 'Codertocat/Other'],
      members: new Set(['octocat']),
    });
    const c = await storeAppConnection(
      t.ctx,
      { installationId: 2, account: 'Codertocat', installation: { repositorySelection: 'selected' }, repositories: ['Codertocat/Other'] },
      gitHubApp.issueUserToken('octocat').accessToken,
    );
    const removed = examplePayload('installation_repositories', 'removed') as Record<string, any>;
    removed.installation.id = 2;
    removed.repositories_removed = [{ ...removed.repositories_removed[0], full_name: 'Codertocat/Hello-World' }];
    const removedShot = appShot('installation_repositories', removed, { installationId: null });
    expect((await call(removedShot)).status).toBe(200);
    const added = examplePayload('installation_repositories', 'added') as Record<string, any>;
    added.installation.id = 2;
    added.repositories_added = [{ ...added.repositories_added[0], full_name: 'Codertocat/Hello-World' }];
    await call(appShot('installation_repositories', added, { installationId: null }));
    expect((await new ConnectionRepo(t.ctx.store).get(c.id))?.repositories).toEqual(['Codertocat/Other', 'Codertocat/Hello-World']);

    expect((await call(replayOf(removedShot, 'f0000000-0000-4000-8000-000000000002'))).body).toEqual({ ok: true, duplicate: true });
    expect((await new ConnectionRepo(t.ctx.store).get(c.id))?.repositories).toEqual(['Codertocat/Other', 'Codertocat/Hello-World']);
  });

  it('a replayed github_app_authorization revoked body does not end a connection made since', async () => {
    const t = await host.context();
    const call = caller(t);
    const revoked = examplePayload('github_app_authorization', 'revoked') as { sender: { id: number } };
    const shot = appShot('github_app_authorization', revoked, { installationId: null });
    await storeAppConnection(t.ctx, { installationId: 2, account: 'Codertocat', userId: String(revoked.sender.id) });
    expect((await call(shot)).body).toMatchObject({ changed: 1 });
    // The user authorizes again: a new connection.
    const again = await storeAppConnection(t.ctx, { installationId: 2, account: 'Codertocat', userId: String(revoked.sender.id) });
    expect((await call(replayOf(shot, 'f0000000-0000-4000-8000-000000000003'))).body).toEqual({ ok: true, duplicate: true });
    expect((await new ConnectionRepo(t.ctx.store).get(again.id))?.status).toBe('connected');
  });
});

describe('a destructive lifecycle delivery acts only when GitHub agrees', () => {
  it('a signed installation.deleted whose installation still exists upstream changes nothing', async () => {
    const t = await host.context();
    gitHubApp.addInstallation({ id: 2, account });
    const c = await storeAppConnection(t.ctx, { installationId: 2, account: 'Codertocat' });
    const answer = await caller(t)(appShot('installation', installationBody('deleted'), { installationId: null }));
    expect(answer).toEqual({ status: 200, body: { ok: true, installation: 2, action: 'deleted', changed: 0, unconfirmed: true } });
    expect((await new ConnectionRepo(t.ctx.store).get(c.id))?.status).toBe('connected');
    expect(t.metrics.counts.get('app_installation_event|action=deleted_unconfirmed')).toBe(1);
  });

  it('a signed suspend of an installation GitHub does not show suspended changes nothing', async () => {
    const t = await host.context();
    gitHubApp.addInstallation({ id: 2, account, suspended: false });
    const c = await storeAppConnection(t.ctx, { installationId: 2, account: 'Codertocat' });
    const answer = await caller(t)(appShot('installation', installationBody('suspend'), { installationId: null }));
    expect(answer.body).toMatchObject({ changed: 0, unconfirmed: true });
    expect((await new ConnectionRepo(t.ctx.store).get(c.id))?.status).toBe('connected');
  });

  it('when GitHub cannot be read back, the queued job fails and stays queued, and its retry is applied', async () => {
    const t = await host.context();
    const c = await storeAppConnection(t.ctx, { installationId: 2, account: 'Codertocat' });
    const shot = appShot('installation', installationBody('deleted'), { installationId: null });
    host.github.before = (req) => (req.path.startsWith('/app/') ? { status: 502, body: { message: 'Server Error' } } : undefined);
    expect((await caller(t)(shot)).status).toBe(503);
    expect((await new ConnectionRepo(t.ctx.store).get(c.id))?.status).toBe('connected');
    host.github.before = (req) => (req.path.startsWith('/app/') ? gitHubApp.handle(req) : undefined);
    // The delivery was accepted once: sent again it is a duplicate, and the job's retry applies it.
    expect((await caller(t)(shot)).body).toEqual({ ok: true, duplicate: true });
    expect((await workQueuedLifecycle(t)).body).toMatchObject({ changed: 1 });
    expect((await new ConnectionRepo(t.ctx.store).get(c.id))?.status).toBe('revoked');
  });
});

describe('the intake holds no code-host credential for the lifecycle', () => {
  it('answers a lifecycle delivery queued without calling the code host, and the dispatch consumer applies it', async () => {
    const t = await host.context();
    const c = await storeAppConnection(t.ctx, { installationId: 2, account: 'Codertocat' });
    const seen: string[] = [];
    host.github.before = (req) => {
      seen.push(req.path);
      return req.path.startsWith('/app/') ? gitHubApp.handle(req) : undefined;
    };
    const router = createRouter(intakeRoutes(t.ctx, providerWebhooks), { platformApiKey: t.ctx.platformApiKey });
    const shot = appShot('installation', installationBody('deleted'), { installationId: null });
    const res = await router({ method: 'POST', path: shot.path, headers: shot.headers, query: new URLSearchParams(), body: shot.body });
    expect(res.status).toBe(202);
    expect(JSON.parse(String(res.body))).toEqual({ ok: true, queued: true });
    expect(seen).toEqual([]);
    expect((await new ConnectionRepo(t.ctx.store).get(c.id))?.status).toBe('connected');
    // The consumer reads the installation back (JWT) and applies the deletion GitHub confirms.
    expect(await consumerPass(t.ctx, t.queues.queue)).toEqual({ received: 1, failed: 0 });
    expect(seen).toEqual(['/app/installations/2']);
    expect((await new ConnectionRepo(t.ctx.store).get(c.id))?.status).toBe('revoked');
  });
});
