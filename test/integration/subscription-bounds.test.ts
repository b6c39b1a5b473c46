import { describe, expect, it } from 'vitest';
import type { AppContext } from '../../shared/ports/app-context';
import type { Store } from '../../shared/ports';
import { EndpointRepo } from '../../shared/store/endpoint-repo';
import { useFakeCodeHost } from '../helpers/code-host-setup';
import { platformApiCaller } from '../helpers/platform-api-caller';

const token = 'ghp_subscriptionBoundsToken00000000000000';
const host = useFakeCodeHost({ [token]: 'octocat' }, { env: { PUBLIC_URL: 'https://hooks.example.test' } });

/** The store, with subscription writes failing while `failing.on` (the write after the hook is widened). */
function subscriptionWritesFail(inner: Store, failing: { on: boolean }): Store {
  return {
    get: (k, o) => inner.get(k, o),
    getAll: (k, o) => inner.getAll(k, o),
    delete: (k, o) => inner.delete(k, o),
    query: (q) => inner.query(q),
    putAll: (items) => inner.putAll(items),
    put: (item, o) =>
      failing.on && item.pk.startsWith('SUB#') ? Promise.reject(new Error('injected: subscription write failed')) : inner.put(item, o),
  } satisfies Store;
}

async function setup() {
  const t = await host.context();
  const failing = { on: false };
  const ctx: AppContext = { ...t.ctx, store: subscriptionWritesFail(t.ctx.store, failing) };
  const call = platformApiCaller(ctx);
  const connection = await t.connect({}, token);
  const subscribe = (body: Record<string, unknown>) =>
    call('POST', '/subscriptions', { connectionId: connection.id, agentId: 'agent-1', ...body });
  const fields = (res: { body: Record<string, any> }) => (res.body.error?.details?.fields ?? []).map((f: { field: string }) => f.field);
  return { t, call, connection, subscribe, fields, failing };
}

describe('subscriptions: every key and item is bounded', () => {
  it('refuses oversize ids, filters and lists with invalid_input naming the field, asking nothing of the code host', async () => {
    const { subscribe, fields, call } = await setup();
    const cases: [Record<string, unknown>, string][] = [
      [{ trigger: 'github.new_issue', repository: 'o/r', agentId: 'a'.repeat(257) }, 'agentId'],
      [{ trigger: 'github.new_issue', repository: 'o/r', filters: { labels: ['x'.repeat(10_000)] } }, 'filters.labels.0'],
      [{ trigger: 'github.new_issue', repository: 'o/r', filters: { label: 'x'.repeat(10_000) } }, 'filters.label'],
      [
        { trigger: 'github.new_issue', repository: 'o/r', filters: { labels: Array.from({ length: 101 }, (_, i) => `l${i}`) } },
        'filters.labels',
      ],
      [{ trigger: 'github.new_commit', repository: 'o/r', filters: { branches: ['b'.repeat(256)] } }, 'filters.branches.0'],
      [
        { trigger: 'github.new_commit', repository: 'o/r', filters: { branches: Array.from({ length: 101 }, (_, i) => `b${i}`) } },
        'filters.branches',
      ],
      [{ trigger: 'github.new_card', repository: 'o/r', filters: { column: 'c'.repeat(257) } }, 'filters.column'],
    ];
    for (const [body, field] of cases) {
      const res = await subscribe(body);
      expect(res.status, field).toBe(400);
      expect(res.body.error.code).toBe('invalid_input');
      expect(fields(res)).toContain(field);
    }
    const longConnection = await call('POST', '/subscriptions', {
      connectionId: 'c'.repeat(3000),
      agentId: 'a',
      trigger: 'github.new_issue',
      repository: 'o/r',
    });
    expect(longConnection.status).toBe(400);
    expect(fields(longConnection)).toEqual(['connectionId']);
    expect(host.github.requests).toHaveLength(0);
  });

  it('answers oversize ids in paths and queries with 400, not a store failure', async () => {
    const { call, fields } = await setup();
    for (const path of [`/subscriptions/${'s'.repeat(3000)}`, `/connections/${'c'.repeat(3000)}`]) {
      const res = await call('GET', path);
      expect(res.status, path.slice(0, 20)).toBe(400);
      expect(fields(res)).toEqual(['path.id']);
    }
    const del = await call('DELETE', `/subscriptions/${'s'.repeat(3000)}`);
    expect(del.status).toBe(400);
    const list = await call('GET', `/subscriptions?connectionId=${'c'.repeat(3000)}`);
    expect(list.status).toBe(400);
    expect(fields(list)).toEqual(['connectionId']);
  });

  it('bounds the repository allow-list of PATCH /connections/{id}', async () => {
    const { call, connection, fields } = await setup();
    const tooMany = await call('PATCH', `/connections/${connection.id}`, {
      repositories: Array.from({ length: 1001 }, (_, i) => `o/r${i}`),
    });
    expect(tooMany.status).toBe(400);
    expect(fields(tooMany)).toEqual(['repositories']);
    const tooLong = await call('PATCH', `/connections/${connection.id}`, { repositories: [`o/${'r'.repeat(101)}`] });
    expect(tooLong.status).toBe(400);
    expect(fields(tooLong)).toEqual(['repositories.0']);
  });
});

describe('a failed subscription leaves the code-host hook as it was', () => {
  it('narrows a widened hook back when the subscription write fails', async () => {
    const { subscribe, failing, t } = await setup();
    const first = await subscribe({ trigger: 'github.new_issue', repository: 'octocat/keep' });
    expect(first.status).toBe(201);
    const [hook] = host.github.hooksOf('repos/octocat/keep');
    expect(hook!.events).toEqual(['issues', 'repository']);

    failing.on = true;
    const second = await subscribe({ trigger: 'github.new_star', repository: 'octocat/keep' });
    expect(second.status).toBe(500);
    expect(host.github.hooksOf('repos/octocat/keep').map((h) => h.events)).toEqual([['issues', 'repository']]);
    expect(await new EndpointRepo(t.ctx.store).get(first.body.endpointId)).toMatchObject({
      hookId: hook!.id,
      events: ['issues', 'repository'],
    });

    failing.on = false;
    expect((await subscribe({ trigger: 'github.new_star', repository: 'octocat/keep' })).status).toBe(201);
    expect(host.github.hooksOf('repos/octocat/keep').map((h) => h.events)).toEqual([['issues', 'repository', 'star']]);
  });

  it('deletes a hook it made for a first subscription whose write fails', async () => {
    const { subscribe, failing, t } = await setup();
    failing.on = true;
    const res = await subscribe({ trigger: 'github.new_issue', repository: 'octocat/fresh' });
    expect(res.status).toBe(500);
    expect(host.github.hooksOf('repos/octocat/fresh')).toEqual([]);
    expect(await new EndpointRepo(t.ctx.store).list()).toEqual([]);
  });
});
