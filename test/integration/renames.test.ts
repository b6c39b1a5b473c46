import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { routes as intakeRoutes } from '../../functions/webhook-intake/routes';
import { providerWebhooks } from '../../shared/wiring/provider-intake';
import { secretNames, type Connection, type Subscription } from '../../shared/domain/model';
import { createRouter } from '../../shared/http/router';
import type { HttpRequest } from '../../shared/http/types';
import { ConnectionRepo } from '../../shared/store/connection-repo';
import { EndpointRepo, endpointIdFor } from '../../shared/store/endpoint-repo';
import { SubscriptionRepo } from '../../shared/store/subscription-repo';
import { createSubscription } from '../../shared/subscriptions/create-subscription';
import { appEnv, appShot, fullInstallation, storeAppConnection, storeAppSubscription } from '../helpers/app-webhook';
import { stopTestDynamo } from '../helpers/dynamo';
import type { Shot } from '../helpers/seed';
import { deliveryRequest, examplePayload } from '../helpers/signed-delivery';
import { testContext, testPlatformKey, type TestContext } from '../helpers/test-context';

afterAll(stopTestDynamo);
const open: TestContext[] = [];
afterEach(() => {
  for (const t of open.splice(0)) t.close();
});

type Json = Record<string, any>;

/** The repository of GitHub's `repository.renamed` example: id 186853261, now `Octocoders/Hello-World`. */
const renamedExample = () => examplePayload('repository', 'renamed') as Json;
const repositoryId = 186853261;
const newName = 'Octocoders/Hello-World';
/** The published example renames "Hello-World" to itself; here it was `Old-World` before. */
const oldName = 'Octocoders/Old-World';
function renamedFrom(name: string): Json {
  const p = renamedExample();
  p.changes.repository.name.from = name;
  return p;
}

/** GitHub's `issues.opened` example, in the repository `repository` (an object as payloads carry it). */
function issueIn(repository: Json, tag: string): Json {
  const p = examplePayload('issues', 'opened') as Json;
  p.repository = structuredClone(repository);
  p.issue.node_id = `I_${tag}`;
  delete p.organization;
  return p;
}

async function setup(env: Record<string, string> = {}) {
  const t = await testContext(env);
  open.push(t);
  const router = createRouter(intakeRoutes(t.ctx, providerWebhooks), { platformApiKey: async () => testPlatformKey });
  const send = async (req: HttpRequest) => {
    const res = await router(req);
    return { status: res.status, body: JSON.parse(String(res.body)) as Json };
  };
  const sendShot = (shot: Shot) =>
    send({ method: 'POST', path: shot.path, headers: shot.headers, query: new URLSearchParams(), body: shot.body });
  const queued = async () => (await t.receiveAll(1000)).map((m) => JSON.parse(m.body) as { subscriptionId: string; event: Json });
  return { t, send, sendShot, queued };
}

/** A token connection with a repository hook on `repository` and one new_issue subscription routed there, as stored before ids were kept. */
async function hookTenant(t: TestContext, repository: string, o: { repositories?: string[]; repositoryId?: number } = {}) {
  const connection = await t.connect({ accountLogin: 'octocat', accountId: '1', repositories: o.repositories ?? [] });
  const target = { kind: 'repository' as const, repository };
  const endpointId = endpointIdFor(connection.id, target);
  const secret = 'secret-of-the-hook-0123456789abcdef';
  await t.secrets.put(secretNames.endpointSecret(endpointId), secret);
  await new EndpointRepo(t.ctx.store).create({
    id: endpointId,
    connectionId: connection.id,
    target,
    hookId: 7,
    events: ['issues', 'repository'],
    createdAt: new Date().toISOString(),
  });
  const sub: Subscription = {
    id: SubscriptionRepo.newId(),
    connectionId: connection.id,
    trigger: 'github.new_issue',
    agentId: 'agent-1',
    repository,
    ...(o.repositoryId !== undefined ? { repositoryId: o.repositoryId } : {}),
    filters: {},
    delivery: 'webhook',
    endpointId,
    createdAt: new Date().toISOString(),
  };
  await new SubscriptionRepo(t.ctx.store).create(sub);
  return { connection, endpointId, secret, sub };
}

describe('renames and transfers: identity by id', () => {
  it('after a repository rename, the old subscription gets the next event under the new name, and its hook and allow-list entry follow', async () => {
    const { t, send, queued } = await setup();
    const h = await hookTenant(t, oldName, { repositories: [oldName] });
    const rename = renamedFrom('Old-World');
    const answer = await send(
      deliveryRequest({ endpointId: h.endpointId, secret: h.secret, event: 'repository', body: JSON.stringify(rename) }),
    );
    expect(answer.status).toBe(200);
    expect(await queued()).toEqual([]);

    const stored = await new SubscriptionRepo(t.ctx.store).get(h.sub.id);
    expect(stored).toMatchObject({ repository: newName, repositoryId });
    const connection = await new ConnectionRepo(t.ctx.store).get(h.connection.id);
    expect(connection?.repositories).toEqual([newName]);
    expect(connection?.repositoryIds).toEqual({ [newName.toLowerCase()]: repositoryId });
    expect((await new EndpointRepo(t.ctx.store).get(h.endpointId))?.target).toEqual({ kind: 'repository', repository: newName });

    const issue = issueIn(rename.repository, 'after-rename');
    const next = await send(deliveryRequest({ endpointId: h.endpointId, secret: h.secret, event: 'issues', body: JSON.stringify(issue) }));
    expect(next.body).toEqual({ ok: true, accepted: 1 });
    expect((await queued()).map((e) => e.subscriptionId)).toEqual([h.sub.id]);
  });

  it('follows a transfer to another owner (the published repository.transferred example)', async () => {
    const { t, send, queued } = await setup();
    const before = 'octocat/Hello-World';
    const h = await hookTenant(t, before, { repositories: [before] });
    const transfer = examplePayload('repository', 'transferred') as Json;
    expect(
      (await send(deliveryRequest({ endpointId: h.endpointId, secret: h.secret, event: 'repository', body: JSON.stringify(transfer) })))
        .status,
    ).toBe(200);
    expect(await new SubscriptionRepo(t.ctx.store).get(h.sub.id)).toMatchObject({ repository: newName, repositoryId });
    expect((await new ConnectionRepo(t.ctx.store).get(h.connection.id))?.repositories).toEqual([newName]);
    const next = await send(
      deliveryRequest({
        endpointId: h.endpointId,
        secret: h.secret,
        event: 'issues',
        body: JSON.stringify(issueIn(transfer.repository, 'moved')),
      }),
    );
    expect(next.body).toEqual({ ok: true, accepted: 1 });
    expect((await queued()).map((e) => e.subscriptionId)).toEqual([h.sub.id]);
  });

  it('notices a rename it missed from the ids of the next delivery: it still matches, and the stored names are brought up to date', async () => {
    const { t, send, queued } = await setup();
    // Known by id (a delivery before the rename filled it in), allow-listed by id too.
    const h = await hookTenant(t, oldName, { repositories: [oldName], repositoryId });
    await new ConnectionRepo(t.ctx.store).update(h.connection.id, (c) => ({
      ...c,
      repositoryIds: { [oldName.toLowerCase()]: repositoryId },
    }));
    // Another trigger's subscription on the repository, without an id yet: the delivery is not routed to it; it follows all the same.
    const { repositoryId: _id, ...withoutId } = h.sub;
    const other: Subscription = { ...withoutId, id: SubscriptionRepo.newId(), trigger: 'github.new_pull_request' };
    await new SubscriptionRepo(t.ctx.store).create(other);
    const issue = issueIn(renamedExample().repository, 'missed');
    const answer = await send(
      deliveryRequest({ endpointId: h.endpointId, secret: h.secret, event: 'issues', body: JSON.stringify(issue) }),
    );
    expect(answer.body).toEqual({ ok: true, accepted: 1 });
    expect((await queued()).map((e) => e.subscriptionId)).toEqual([h.sub.id]);
    expect(await new SubscriptionRepo(t.ctx.store).get(h.sub.id)).toMatchObject({ repository: newName, repositoryId });
    expect(await new SubscriptionRepo(t.ctx.store).get(other.id)).toMatchObject({ repository: newName, repositoryId });
    expect((await new ConnectionRepo(t.ctx.store).get(h.connection.id))?.repositories).toEqual([newName]);
    expect((await new EndpointRepo(t.ctx.store).get(h.endpointId))?.target).toEqual({ kind: 'repository', repository: newName });
  });

  it('fills the id of a row from before ids in on the next delivery, and then tells a new repository under the old name apart', async () => {
    const { t, send, queued } = await setup();
    const h = await hookTenant(t, newName, { repositories: [newName] });
    const repository = renamedExample().repository;
    const first = await send(
      deliveryRequest({ endpointId: h.endpointId, secret: h.secret, event: 'issues', body: JSON.stringify(issueIn(repository, 'first')) }),
    );
    expect(first.body).toEqual({ ok: true, accepted: 1 });
    expect(await new SubscriptionRepo(t.ctx.store).get(h.sub.id)).toMatchObject({ repository: newName, repositoryId });
    expect((await new ConnectionRepo(t.ctx.store).get(h.connection.id))?.repositoryIds).toEqual({ [newName.toLowerCase()]: repositoryId });
    await queued();
    // Another repository now carries the name (the first was renamed away, or deleted): not this subscription's.
    const impostor = { ...repository, id: repositoryId + 1 };
    const second = await send(
      deliveryRequest({ endpointId: h.endpointId, secret: h.secret, event: 'issues', body: JSON.stringify(issueIn(impostor, 'second')) }),
    );
    expect(second.body).toEqual({ ok: true, accepted: 0 });
    expect(await queued()).toEqual([]);
  });

  it("notices a token connection's user renamed from the sender's id", async () => {
    const { t, send } = await setup();
    const h = await hookTenant(t, newName);
    await new ConnectionRepo(t.ctx.store).update(h.connection.id, (c) => ({ ...c, accountId: '21031067' }));
    const issue = issueIn(renamedExample().repository, 'sender');
    issue.sender = { ...issue.sender, login: 'Codertocat-Renamed', id: 21031067 };
    expect(
      (await send(deliveryRequest({ endpointId: h.endpointId, secret: h.secret, event: 'issues', body: JSON.stringify(issue) }))).status,
    ).toBe(202);
    expect((await new ConnectionRepo(t.ctx.store).get(h.connection.id))?.accountLogin).toBe('Codertocat-Renamed');
  });
});

/** `installation_target` `renamed` as GitHub's webhook schema describes it (GitHub publishes no example payload of it). */
function targetRenamed(o: { id: number; login: string; from: string; type: 'User' | 'Organization' }): Json {
  return {
    action: 'renamed',
    target_type: o.type,
    account: {
      id: o.id,
      login: o.login,
      node_id: 'MDQ6VXNlcjE=',
      avatar_url: 'https://avatars.githubusercontent.com/u/1',
      html_url: `https://github.com/${o.login}`,
    },
    changes: { login: { from: o.from } },
    sender: { login: o.login, id: o.id, type: o.type },
  };
}

describe('renames of a GitHub App installation', () => {
  async function appTenant(t: TestContext, account: string, repositories: string[] = []): Promise<Connection> {
    const c = await storeAppConnection(t.ctx, {
      installationId: 42,
      account,
      login: account,
      userId: '1',
      installation: { ...fullInstallation, account: { login: account, id: '1', type: 'User' }, repositorySelection: 'selected' },
      repositories,
    });
    return c;
  }

  it("an account rename updates the connection's login, its subscriptions and allow-list; subscribing under the new name is the same subscription", async () => {
    const { t, sendShot, queued } = await setup(appEnv);
    const c = await appTenant(t, 'octocat', ['octocat/Hello-World']);
    const sub = await storeAppSubscription(t.ctx, c, 'github.new_issue', 'octocat/Hello-World', 'agent-1');
    const answer = await sendShot(
      appShot('installation_target', targetRenamed({ id: 1, login: 'octo-renamed', from: 'octocat', type: 'User' }), {
        installationId: 42,
      }),
    );
    expect(answer.status).toBe(200);
    const after = await new ConnectionRepo(t.ctx.store).get(c.id);
    expect(after?.installation?.account).toMatchObject({ login: 'octo-renamed', id: '1' });
    expect(after?.accountLogin).toBe('octo-renamed');
    expect(after?.repositories).toEqual(['octo-renamed/Hello-World']);
    expect((await new SubscriptionRepo(t.ctx.store).get(sub.id))?.repository).toBe('octo-renamed/Hello-World');

    const again = await createSubscription(t.ctx, {
      connectionId: c.id,
      trigger: 'github.new_issue',
      agentId: 'agent-1',
      repository: 'octo-renamed/Hello-World',
    });
    expect(again).toMatchObject({ id: sub.id, existing: true });

    const issue = issueIn(
      { ...renamedExample().repository, full_name: 'octo-renamed/Hello-World', owner: { login: 'octo-renamed', id: 1, type: 'User' } },
      'app',
    );
    expect((await sendShot(appShot('issues', issue, { installationId: 42 }))).body).toEqual({ ok: true, accepted: 1 });
    expect((await queued()).map((e) => e.subscriptionId)).toEqual([sub.id]);
  });

  it('notices an account rename it missed from the owner id of the next delivery', async () => {
    const { t, sendShot, queued } = await setup(appEnv);
    const c = await appTenant(t, 'octocat', ['octocat/Hello-World']);
    const sub = await storeAppSubscription(t.ctx, c, 'github.new_issue', 'octocat/Hello-World', 'agent-1');
    const other = await storeAppSubscription(t.ctx, c, 'github.new_pull_request', 'octocat/Other', 'agent-1');
    const issue = issueIn(
      { ...renamedExample().repository, full_name: 'octo-renamed/Hello-World', owner: { login: 'octo-renamed', id: 1, type: 'User' } },
      'missed',
    );
    expect((await sendShot(appShot('issues', issue, { installationId: 42 }))).body).toEqual({ ok: true, accepted: 1 });
    expect((await queued()).map((e) => e.subscriptionId)).toEqual([sub.id]);
    const after = await new ConnectionRepo(t.ctx.store).get(c.id);
    expect(after?.installation?.account.login).toBe('octo-renamed');
    expect(after?.repositories).toEqual(['octo-renamed/Hello-World']);
    expect(await new SubscriptionRepo(t.ctx.store).get(sub.id)).toMatchObject({ repository: 'octo-renamed/Hello-World', repositoryId });
    // Every subscription under the old login follows, not only those the delivery was routed to.
    expect((await new SubscriptionRepo(t.ctx.store).get(other.id))?.repository).toBe('octo-renamed/Other');
  });

  it("an allow-list entry follows a repository the App's webhook says was renamed", async () => {
    const { t, sendShot, queued } = await setup(appEnv);
    const c = await appTenant(t, 'Octocoders', [oldName]);
    const sub = await storeAppSubscription(t.ctx, c, 'github.new_issue', oldName, 'agent-1');
    expect((await sendShot(appShot('repository', renamedFrom('Old-World'), { installationId: 42 }))).status).toBe(200);
    expect((await new ConnectionRepo(t.ctx.store).get(c.id))?.repositories).toEqual([newName]);
    expect((await sendShot(appShot('issues', issueIn(renamedExample().repository, 'app-renamed'), { installationId: 42 }))).body).toEqual({
      ok: true,
      accepted: 1,
    });
    expect((await queued()).map((e) => e.subscriptionId)).toEqual([sub.id]);
  });
});
