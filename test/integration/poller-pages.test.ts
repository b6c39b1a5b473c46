import { describe, expect, it } from 'vitest';
import { pollOnce } from '../../shared/polling/poll-once';
import { checkAgainstOpenApi } from '../helpers/openapi-check';
import { useFakeCodeHost } from '../helpers/code-host-setup';
import { platformApiCaller } from '../helpers/platform-api-caller';

const token = 'ghp_pollerPagesToken0000000000000000000000';
const host = useFakeCodeHost(
  { [token]: 'gister' },
  {
    afterEachTest: (github) => {
      // Every list the poller asked for is a documented operation with documented query parameters.
      // (`/repositories/{id}/...` is the form the code host's own Link headers use for the next pages.)
      const problems = github.requests
        .filter((r) => !r.path.startsWith('/repositories/') && r.path !== '/user')
        .flatMap((r) => checkAgainstOpenApi(r).problems);
      expect(problems).toEqual([]);
    },
  },
);

function gist(n: number, createdAt: string) {
  return {
    id: `g${n}`,
    created_at: createdAt,
    updated_at: createdAt,
    description: `gist ${n}`,
    public: true,
    html_url: `https://gist.example/g${n}`,
    files: {},
    owner: { login: 'gister', id: 7 },
  };
}

/** A simple-user object, as `GET /repos/{o}/{r}/subscribers` lists them. */
function user(id: number) {
  return { login: `watcher${id}`, id, node_id: `U_${id}`, type: 'User', site_admin: false, html_url: `https://github.com/watcher${id}` };
}

async function setup() {
  const t = await host.context();
  const connection = await t.connect({ accountLogin: 'gister' }, token);
  const call = platformApiCaller(t.ctx);
  const subscribe = (body: Record<string, unknown>) =>
    call('POST', '/subscriptions', { connectionId: connection.id, agentId: 'agent-p', ...body });
  const queuedEvents = async () => (await t.receiveAll()).map((m) => JSON.parse(m.body) as Record<string, any>);
  return { t, subscribe, queuedEvents };
}

describe('new_gist reads past the first page', () => {
  it('announces every one of 250 gists created since the last round (three pages), and none of the older ones', async () => {
    const { t, subscribe } = await setup();
    const old = Array.from({ length: 120 }, (_, i) => gist(i, new Date(Date.UTC(2026, 0, 1) - i * 60_000).toISOString()));
    host.github.gists.set('gister', old);
    expect((await subscribe({ trigger: 'github.new_gist' })).status).toBe(201);
    const fresh = Array.from({ length: 250 }, (_, i) => gist(1000 + i, new Date(Date.UTC(2026, 1, 1) - i * 60_000).toISOString()));
    host.github.gists.set('gister', [...fresh, ...old]);
    expect(await pollOnce(t.ctx)).toMatchObject({ announced: 250 });
    const ids = (await t.receiveAll(1000)).map((m) => (JSON.parse(m.body) as { event: { gist: { id: string } } }).event.gist.id).sort();
    expect(ids).toEqual(fresh.map((g) => g.id).sort());
    // It stopped at the page holding what was already there: pages 1-3, not the old ones' last page.
    expect(host.github.requests.filter((r) => r.path === '/gists').map((r) => r.query.get('page') ?? '1')).toEqual(['1', '1', '2', '3']);
    expect(await pollOnce(t.ctx)).toMatchObject({ announced: 0, notModified: 1 });
  });
});

describe('new_watcher is polled from the subscribers list', () => {
  it('announces who starts watching after the subscription, once, and not those already watching', async () => {
    const { t, subscribe, queuedEvents } = await setup();
    host.github.watchers.set('octocat/hello', [user(1), user(2)]);
    const sub = await subscribe({ trigger: 'github.new_watcher', repository: 'octocat/hello' });
    expect(sub.status, JSON.stringify(sub.body)).toBe(201);
    expect(sub.body.delivery).toBe('polling');
    expect(host.github.hooksOf('repos/octocat/hello')).toEqual([]);
    expect(await pollOnce(t.ctx)).toMatchObject({ announced: 0, notModified: 1 });

    host.github.watchers.set('octocat/hello', [user(1), user(2), user(3)]);
    expect(await pollOnce(t.ctx)).toMatchObject({ announced: 1 });
    const events = await queuedEvents();
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({
      trigger: 'github.new_watcher',
      subscriptionId: sub.body.id,
      event: { action: 'started', sender: { login: 'watcher3', id: 3 }, repository: { full_name: 'octocat/hello' } },
    });
    expect(await pollOnce(t.ctx)).toMatchObject({ announced: 0 });
  });

  it('reads every page with its own ETag: a new watcher at the end of a long list is found, unchanged pages answer 304', async () => {
    const { t, subscribe, queuedEvents } = await setup();
    host.github.watchers.set(
      'octocat/big',
      Array.from({ length: 250 }, (_, i) => user(i + 1)),
    );
    await subscribe({ trigger: 'github.new_watcher', repository: 'octocat/big' });
    host.github.watchers.get('octocat/big')!.push(user(999));
    host.github.requests.length = 0;
    expect(await pollOnce(t.ctx)).toMatchObject({ announced: 1 });
    expect((await queuedEvents()).map((e) => e.event.sender.login)).toEqual(['watcher999']);
    const pages = host.github.requests.filter((r) => r.path.endsWith('/subscribers'));
    expect(pages).toHaveLength(3);
    expect(pages.every((r) => typeof r.headers['if-none-match'] === 'string')).toBe(true);
  });

  it('is a repository trigger only, and does not ask for a webhook', async () => {
    const { subscribe } = await setup();
    const res = await subscribe({ trigger: 'github.new_watcher', organization: 'octo-org' });
    expect(res.status).toBe(400);
    expect(JSON.stringify(res.body)).toContain('repository');
  });
});
