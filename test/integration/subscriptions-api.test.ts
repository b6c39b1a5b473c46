import { describe, expect, it } from 'vitest';
import { secretNames } from '../../shared/domain/model';
import { keys } from '../../shared/store/table-design';
import { EndpointRepo } from '../../shared/store/endpoint-repo';
import { useFakeCodeHost } from '../helpers/code-host-setup';
import { platformApiCaller } from '../helpers/platform-api-caller';

const token = 'ghp_subscriptionsTestToken0000000000000000';
const host = useFakeCodeHost({ [token]: 'octocat' }, { env: { PUBLIC_URL: 'https://hooks.example.test' } });

async function setup() {
  const t = await host.context();
  const call = platformApiCaller(t.ctx);
  const connection = await t.connect({}, token);
  const subscribe = (body: Record<string, unknown>) =>
    call('POST', '/subscriptions', { connectionId: connection.id, agentId: 'agent-1', ...body });
  const fields = (res: { body: Record<string, any> }) => (res.body.error?.details?.fields ?? []).map((f: { field: string }) => f.field);
  return { t, call, connection, subscribe, fields };
}

describe('subscriptions API', () => {
  it('names the field of every validation problem', async () => {
    const { subscribe, fields, call, connection } = await setup();
    const unknown = await subscribe({ trigger: 'github.new_thing', repository: 'o/r' });
    expect(unknown.status).toBe(400);
    expect(fields(unknown)).toEqual(['trigger']);
    expect(unknown.body.error.message).toContain('unknown trigger');
    const noRepo = await subscribe({ trigger: 'github.new_issue' });
    expect(noRepo.status).toBe(400);
    expect(fields(noRepo)).toEqual(['repository']);
    const malformed = await subscribe({ trigger: 'github.new_issue', repository: 'just-a-name' });
    expect(fields(malformed)).toEqual(['repository']);
    expect(malformed.body.error.message).toContain('owner/name');
    const badFilter = await subscribe({ trigger: 'github.new_star', repository: 'o/r', filters: { branch: 'main' } });
    expect(badFilter.status).toBe(400);
    expect(fields(badFilter)).toEqual(['filters.branch']);
    const unknownFilter = await subscribe({ trigger: 'github.new_commit', repository: 'o/r', filters: { colour: 'red' } });
    expect(fields(unknownFilter)).toEqual(['filters']);
    const noAgent = await call('POST', '/subscriptions', { connectionId: connection.id, trigger: 'github.new_issue', repository: 'o/r' });
    expect(fields(noAgent)).toEqual(['agentId']);
    const noConnection = await call('POST', '/subscriptions', {
      connectionId: 'conn_missing',
      agentId: 'a',
      trigger: 'github.new_issue',
      repository: 'o/r',
    });
    expect(noConnection.status).toBe(404);
    expect(host.github.requests).toHaveLength(0);
  });

  it('creates the hook at the code host: JSON, a secret of at least 32 bytes kept in the secret store, the endpoint URL', async () => {
    const { t, subscribe } = await setup();
    const res = await subscribe({ trigger: 'github.new_commit', repository: 'octocat/hello', filters: { branch: 'main' } });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({
      trigger: 'github.new_commit',
      repository: 'octocat/hello',
      delivery: 'webhook',
      filters: { branches: ['main'] },
    });
    const [hook] = host.github.hooksOf('repos/octocat/hello');
    expect(hook).toBeDefined();
    expect(hook!.config.content_type).toBe('json');
    expect(hook!.config.insecure_ssl).toBe('0');
    expect(hook!.config.url).toBe(`https://hooks.example.test/webhooks/github/${res.body.endpointId}`);
    // `repository` besides the trigger's events: its rename and transfer deliveries keep the names current.
    expect(hook!.events).toEqual(['push', 'repository']);
    const secret = await t.secrets.get(secretNames.endpointSecret(res.body.endpointId));
    expect(secret).toBe(hook!.config.secret);
    expect(Buffer.from(secret!, 'hex').length).toBeGreaterThanOrEqual(32);
    const endpoint = await new EndpointRepo(t.ctx.store).get(res.body.endpointId);
    expect(endpoint).toMatchObject({ hookId: hook!.id, events: ['push', 'repository'] });
    expect(JSON.stringify(res.body)).not.toContain(secret!);
  });

  it('shares one hook per repository, widening its events with a PATCH, and narrowing then deleting it as subscriptions go', async () => {
    const { t, subscribe, call } = await setup();
    const a = await subscribe({ trigger: 'github.new_issue', repository: 'octocat/shared' });
    const b = await subscribe({ trigger: 'github.new_star', repository: 'octocat/shared' });
    const c = await subscribe({ trigger: 'github.new_issue', repository: 'octocat/shared', agentId: 'agent-2' });
    expect([a.status, b.status, c.status]).toEqual([201, 201, 201]);
    expect(new Set([a.body.endpointId, b.body.endpointId, c.body.endpointId]).size).toBe(1);
    const hooks = host.github.hooksOf('repos/octocat/shared');
    expect(hooks).toHaveLength(1);
    expect(hooks[0]!.events).toEqual(['issues', 'repository', 'star']);
    expect(host.github.requests.filter((r) => r.method === 'POST' && r.path.endsWith('/hooks'))).toHaveLength(1);
    expect(host.github.requests.filter((r) => r.method === 'PATCH')).toHaveLength(1);

    const delStar = await call('DELETE', `/subscriptions/${b.body.id}`);
    expect(delStar.body).toMatchObject({ deleted: true, hook: 'updated' });
    expect(hooks[0]!.events).toEqual(['issues', 'repository']);
    expect((await call('DELETE', `/subscriptions/${a.body.id}`)).body.hook).toBe('kept');
    expect((await call('DELETE', `/subscriptions/${c.body.id}`)).body.hook).toBe('deleted');
    expect(host.github.hooksOf('repos/octocat/shared')).toHaveLength(0);
    expect(await new EndpointRepo(t.ctx.store).get(a.body.endpointId)).toBeUndefined();
    expect(await t.secrets.get(secretNames.endpointSecret(a.body.endpointId))).toBeUndefined();
    expect((await call('GET', `/subscriptions/${a.body.id}`)).status).toBe(404);
  });

  it('makes one hook when subscriptions on the same repository arrive at the same time', async () => {
    const { subscribe } = await setup();
    const answers = await Promise.all([
      subscribe({ trigger: 'github.new_issue', repository: 'octocat/race' }),
      subscribe({ trigger: 'github.new_star', repository: 'octocat/race' }),
      subscribe({ trigger: 'github.new_fork', repository: 'octocat/race' }),
    ]);
    expect(answers.map((a) => a.status)).toEqual([201, 201, 201]);
    const hooks = host.github.hooksOf('repos/octocat/race');
    expect(hooks).toHaveLength(1);
    expect(hooks[0]!.events).toEqual(['fork', 'issues', 'repository', 'star']);
  });

  it('the same subscription asked for again answers the existing one (200, existing: true) and makes no second', async () => {
    const { call, connection, subscribe } = await setup();
    const body = { trigger: 'github.new_issue', repository: 'octocat/again', filters: { labels: ['bug', 'p1'] } };
    const first = await subscribe(body);
    expect(first.status).toBe(201);
    expect(first.body.existing).toBeUndefined();
    // Pasted again (after a restart), with the labels in another order and the repository in another case.
    const again = await subscribe({ ...body, repository: 'OctoCat/again', filters: { labels: ['p1', 'bug'] } });
    expect(again.status).toBe(200);
    expect(again.body).toMatchObject({ id: first.body.id, existing: true, endpointId: first.body.endpointId });
    const listed = (await call('GET', `/subscriptions?connectionId=${connection.id}`)).body.subscriptions as Array<{ repository?: string }>;
    expect(listed.filter((x) => x.repository === 'octocat/again')).toHaveLength(1);
    // Two identical requests at once make one subscription too.
    const both = await Promise.all([
      subscribe({ trigger: 'github.new_star', repository: 'octocat/again' }),
      subscribe({ trigger: 'github.new_star', repository: 'octocat/again' }),
    ]);
    expect(both.map((a) => a.status).sort()).toEqual([200, 201]);
    expect(new Set(both.map((a) => a.body.id)).size).toBe(1);
  });

  it('a different agent, target or filter is a new subscription; allowDuplicate: true makes a second identical one', async () => {
    const { subscribe } = await setup();
    const body = { trigger: 'github.new_issue', repository: 'octocat/twice' };
    const first = await subscribe(body);
    expect((await subscribe({ ...body, agentId: 'agent-2' })).status).toBe(201);
    expect((await subscribe({ ...body, filters: { label: 'bug' } })).status).toBe(201);
    expect((await subscribe({ ...body, repository: 'octocat/other' })).status).toBe(201);
    const second = await subscribe({ ...body, allowDuplicate: true });
    expect(second.status).toBe(201);
    expect(second.body.id).not.toBe(first.body.id);
    expect(second.body.existing).toBeUndefined();
    expect((await subscribe({ ...body, allowDuplicate: 'yes' })).status).toBe(400);
  });

  it('refuses with forbidden naming the missing permission when the code host will not create the hook', async () => {
    const { t, subscribe, call } = await setup();
    host.github.refuseHooks.set('repos/someone/else', 403);
    const res = await subscribe({ trigger: 'github.new_issue', repository: 'someone/else' });
    expect(res.status).toBe(403);
    expect(res.body.error.code).toBe('forbidden');
    expect(res.body.error.message).toContain('admin:repo_hook');
    expect(res.body.error.message).toContain('Webhooks');
    expect((await call('GET', '/subscriptions')).body.subscriptions).toEqual([]);
    expect(await new EndpointRepo(t.ctx.store).list()).toEqual([]);
    expect(t.secrets.values.size).toBe(1); // only the connection's token
  });

  it('falls back to polling, and says so, for a polled trigger whose hook is refused', async () => {
    const { t, subscribe } = await setup();
    host.github.refuseHooks.set('orgs/octo-org', 404);
    const res = await subscribe({ trigger: 'github.new_repository', organization: 'octo-org' });
    expect(res.status).toBe(201);
    expect(res.body.delivery).toBe('polling');
    expect(res.body.note).toMatch(/polled/);
    expect(res.body.note).toContain('admin:org_hook');
    expect(await t.ctx.store.get(keys.pollCursor(res.body.id))).toBeDefined();
  });

  it('refuses a repository outside the connection allow-list, asking nothing of the code host', async () => {
    const { subscribe, call, connection } = await setup();
    await call('PATCH', `/connections/${connection.id}`, { repositories: ['octocat/allowed'] });
    host.github.requests.length = 0;
    const res = await subscribe({ trigger: 'github.new_issue', repository: 'octocat/other' });
    expect(res.status).toBe(403);
    expect(res.body.error.code).toBe('forbidden');
    expect(host.github.requests).toHaveLength(0);
    expect((await subscribe({ trigger: 'github.new_issue', repository: 'OctoCat/Allowed' })).status).toBe(201);
  });

  it("lists subscriptions, all or one connection's", async () => {
    const { t, subscribe, call } = await setup();
    await subscribe({ trigger: 'github.new_issue', repository: 'octocat/x' });
    const other = await t.connect({}, token);
    await call('POST', '/subscriptions', { connectionId: other.id, agentId: 'b', trigger: 'github.new_star', repository: 'octocat/y' });
    expect((await call('GET', '/subscriptions')).body.subscriptions).toHaveLength(2);
    const mine = (await call('GET', `/subscriptions?connectionId=${other.id}`)).body.subscriptions;
    expect(mine.map((s: { trigger: string }) => s.trigger)).toEqual(['github.new_star']);
  });

  it('adopts a hook left behind with our URL instead of making a second one', async () => {
    const { t, subscribe, call } = await setup();
    const first = await subscribe({ trigger: 'github.new_issue', repository: 'octocat/crash' });
    // Simulate a crash that lost our record of the hook (endpoint item gone, hook still there).
    await t.ctx.store.delete(keys.endpoint(first.body.endpointId));
    await t.ctx.store.delete(keys.subscription(first.body.id));
    const again = await subscribe({ trigger: 'github.new_issue', repository: 'octocat/crash' });
    expect(again.status).toBe(201);
    const hooks = host.github.hooksOf('repos/octocat/crash');
    expect(hooks).toHaveLength(1);
    expect(hooks[0]!.config.secret).toBe(await t.secrets.get(secretNames.endpointSecret(again.body.endpointId)));
    expect((await call('DELETE', `/subscriptions/${again.body.id}`)).body.hook).toBe('deleted');
  });
});
