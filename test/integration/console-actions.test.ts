import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiKeyRepo } from '../../shared/store/api-key-repo';
import { SubscriptionRepo } from '../../shared/store/subscription-repo';
import { FakeGitHub } from '../helpers/fake-github-server';
import { httpApiCaller } from '../helpers/platform-api-caller';
import { platformKey, repository, startRuntime, type TestRuntime } from '../helpers/runtime-support';

/**
 * The console's acting forms over HTTP, as a browser posts them: each needs the session's CSRF
 * token and a same-origin request, calls the same service code as the platform API's route,
 * and answers a refused form with the page again, each problem under the field it names.
 */
const token = 'ghp_consoleActionsTestToken0000000000000';
let github: FakeGitHub;
let rt: TestRuntime;
let cookie: string;
let csrf: string;
let connectionId: string;

async function signIn(): Promise<void> {
  const res = await fetch(`${rt.url}/console/login`, {
    method: 'POST',
    redirect: 'manual',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ key: platformKey }).toString(),
  });
  expect(res.status).toBe(303);
  cookie = (res.headers.get('set-cookie') ?? '').split(';')[0] ?? '';
  const page = await (await fetch(`${rt.url}/`, { headers: { cookie, accept: 'text/html' } })).text();
  csrf = /name="csrf" value="([^"]+)"/.exec(page)?.[1] ?? '';
  expect(csrf).not.toBe('');
}

/** A console form posted from the page: the session, its token, this origin (unless the test says otherwise). */
function post(path: string, fields: Record<string, string | string[]>, headers: Record<string, string> = {}, withToken = true) {
  const body = new URLSearchParams();
  if (withToken) body.append('csrf', csrf);
  for (const [k, v] of Object.entries(fields)) for (const one of [v].flat()) body.append(k, one);
  return fetch(`${rt.url}${path}`, {
    method: 'POST',
    redirect: 'manual',
    headers: {
      'content-type': 'application/x-www-form-urlencoded',
      accept: 'text/html',
      cookie,
      origin: rt.url,
      'sec-fetch-site': 'same-origin',
      ...headers,
    },
    body: body.toString(),
  });
}

const pageText = async () => (await fetch(`${rt.url}/`, { headers: { cookie, accept: 'text/html' } })).text();

beforeAll(async () => {
  github = await FakeGitHub.start();
  github.addUser(token, 'Codertocat');
  rt = await startRuntime({ GITHUB_API_URL: github.url }, false);
  const made = await httpApiCaller(rt.url, platformKey)('POST', '/connections', { provider: 'github', token });
  expect(made.status).toBe(201);
  connectionId = made.body.id as string;
  await signIn();
});
afterAll(async () => {
  await rt?.dispose();
  await github?.close();
});

describe('the console forms refuse what a foreign page could send', () => {
  const attempts: Array<[string, Record<string, string>]> = [
    ['/console/connect', { endUserId: 'someone' }],
    ['/console/subscriptions', { connectionId: 'x', trigger: 'github.new_issue', agentId: 'a', repository }],
    ['/console/keys', { label: 'k', endUserId: 'someone' }],
  ];

  it.each(attempts)(
    '%s: 403 without the CSRF token, from another origin, or sent cross-site; 401 without a session',
    async (path, fields) => {
      const keysBefore = (await new ApiKeyRepo(rt.ctx.store).list()).length;
      expect((await post(path, fields, {}, false)).status).toBe(403);
      expect((await post(path, fields, { origin: 'https://evil.example' })).status).toBe(403);
      expect((await post(path, fields, { 'sec-fetch-site': 'cross-site' })).status).toBe(403);
      expect((await post(path, fields, { cookie: '' })).status).toBe(401);
      expect((await new ApiKeyRepo(rt.ctx.store).list()).length).toBe(keysBefore);
      expect(await new SubscriptionRepo(rt.ctx.store).list()).toHaveLength(0);
    },
  );

  it('refuses a revoke, a delete and an example send without the token', async () => {
    expect((await post('/console/keys/key_x/revoke', {}, {}, false)).status).toBe(403);
    expect((await post('/console/subscriptions/sub_x/delete', {}, {}, false)).status).toBe(403);
    expect((await post('/console/subscriptions/sub_x/example', {}, {}, false)).status).toBe(403);
  });
});

describe('connect', () => {
  it('makes a connect session for the end user and sends the browser to its page, which comes back to the console', async () => {
    const res = await post('/console/connect', { endUserId: 'console', label: 'from the console' });
    expect(res.status).toBe(303);
    const location = res.headers.get('location') ?? '';
    expect(location).toMatch(new RegExp(`^${rt.config.publicUrl}/connect/[A-Za-z0-9_-]+$`));
    const connectPage = await fetch(location.replace(rt.config.publicUrl, rt.url));
    expect(connectPage.status).toBe(200);
    expect(await connectPage.text()).not.toContain(platformKey);
  });

  it('names a bad end user id under its field', async () => {
    const res = await post('/console/connect', { endUserId: 'no spaces allowed' });
    expect(res.status).toBe(400);
    const html = await res.text();
    expect(html).toMatch(/id="connect-endUserId-error">endUserId: must be 1 to 128 letters/);
    expect(html).toContain('value="no spaces allowed"');
  });

  it('comes back from the connect page: straight on with the session, by a same-site step without it', async () => {
    const signedIn = await fetch(`${rt.url}/console/connected?connectionId=${connectionId}`, { redirect: 'manual', headers: { cookie } });
    expect(signedIn.status).toBe(303);
    expect(signedIn.headers.get('location')).toBe(`/?done=connected&subject=${connectionId}#connections`);
    const withoutCookie = await fetch(`${rt.url}/console/connected?connectionId=${connectionId}`, { redirect: 'manual' });
    expect(withoutCookie.status).toBe(200);
    expect(await withoutCookie.text()).toContain(`href="/?done=connected&#38;subject=${connectionId}#connections"`);
    const failed = await fetch(`${rt.url}/console/connected?error=access_denied`, { redirect: 'manual', headers: { cookie } });
    expect(failed.headers.get('location')).toBe('/?done=connect_failed&subject=access_denied#connections');
    const shown = await (await fetch(`${rt.url}/?done=connected&subject=${connectionId}`, { headers: { cookie } })).text();
    expect(shown).toContain(`Connected: ${connectionId}.`);
  });
});

describe('subscribe', () => {
  it("offers the chosen trigger's targets and declared filters", async () => {
    const html = await (await fetch(`${rt.url}/?subscribe=github.new_push`, { headers: { cookie } })).text();
    expect(html).toContain('id="subscribe-form"');
    expect(html).toContain('name="filter.branches"');
    expect(html).not.toContain('name="filter.labels"');
    expect(html).toContain('name="repository"');
  });

  it('names each refused field under it, the form filled as it was posted', async () => {
    const res = await post('/console/subscriptions', {
      connectionId,
      trigger: 'github.new_issue',
      agentId: 'console-agent',
      repository: 'not a repository',
      'filter.branches': 'main',
    });
    expect(res.status).toBe(400);
    const html = await res.text();
    expect(html).toMatch(/id="subscribe-repository-error">repository: must be &#34;owner\/name&#34;/);
    expect(html).toContain('value="not a repository"');
    expect(html).toContain('role="alert"');
    expect(await new SubscriptionRepo(rt.ctx.store).list()).toHaveLength(0);

    const noTarget = await post('/console/subscriptions', { connectionId, trigger: 'github.new_issue', agentId: 'console-agent' });
    expect(noTarget.status).toBe(400);
    expect(await noTarget.text()).toMatch(/id="subscribe-repository-error">repository: is required for github.new_issue/);

    const badFilter = await post('/console/subscriptions', {
      connectionId,
      trigger: 'github.new_issue',
      agentId: 'console-agent',
      repository,
      'filter.branches': 'main',
    });
    expect(badFilter.status).toBe(400);
    const noTrigger = await post('/console/subscriptions', { connectionId, trigger: 'github.no_such_trigger', agentId: 'a', repository });
    expect(noTrigger.status).toBe(400);
    expect(await noTrigger.text()).toMatch(/id="subscribe-error" role="alert">Invalid input: trigger: /);
    // The trigger's form has no branches field to put it under: the refusal above the form names it.
    expect(await badFilter.text()).toMatch(
      /role="alert">Invalid input: filters.branches: is not accepted by github.new_issue \(it accepts: labels\)/,
    );
  });

  it('subscribes through the same service as POST /subscriptions, lists it, sends its example through the intake, deletes it', async () => {
    const res = await post('/console/subscriptions', {
      connectionId,
      trigger: 'github.new_issue',
      agentId: 'console-agent',
      repository,
      'filter.labels': 'bug, p1',
    });
    expect(res.status).toBe(303);
    const [sub] = await new SubscriptionRepo(rt.ctx.store).list();
    expect(sub).toMatchObject({ trigger: 'github.new_issue', agentId: 'console-agent', repository, filters: { labels: ['bug', 'p1'] } });
    expect(res.headers.get('location')).toBe(`/?done=subscribed&subject=${sub?.id}#subscriptions`);
    expect(github.hooksOf(`repos/${repository}`)).toHaveLength(1);
    expect(await pageText()).toContain(`data-subscription="${sub?.id}"`);

    const queued = rt.queues.queue.size();
    const sent = await post(`/console/subscriptions/${sub?.id}/example`, {});
    expect(sent.status).toBe(200);
    expect(await sent.text()).toMatch(/Example issues sent to sub_[a-z0-9]+: the intake answered 202/);
    expect(rt.queues.queue.size()).toBe(queued + 1);

    const deleted = await post(`/console/subscriptions/${sub?.id}/delete`, {});
    expect(deleted.status).toBe(303);
    expect(await new SubscriptionRepo(rt.ctx.store).list()).toHaveLength(0);
    expect(github.hooksOf(`repos/${repository}`)).toHaveLength(0);
  });
});

describe('scoped keys', () => {
  it('makes a key, shows its secret on that one uncached page, lists it without it, and revokes it', async () => {
    const res = await post('/console/keys', { label: 'console key', connections: [connectionId], agents: 'agent-a, agent-b' });
    expect(res.status).toBe(201);
    expect(res.headers.get('cache-control')).toBe('no-store');
    const html = await res.text();
    const secret = /id="new-key-secret" readonly value="([^"]+)"/.exec(html)?.[1] ?? '';
    expect(secret).toMatch(/^aik_/);
    const [key] = await new ApiKeyRepo(rt.ctx.store).list();
    expect(key).toMatchObject({ label: 'console key', connections: [connectionId], agents: ['agent-a', 'agent-b'] });
    const later = await pageText();
    expect(later).toContain(`data-key="${key?.id}"`);
    expect(later).not.toContain(secret);
    // The key works on the platform API, within its connection.
    expect((await httpApiCaller(rt.url, secret)('GET', '/subscriptions')).status).toBe(200);

    const revoked = await post(`/console/keys/${key?.id}/revoke`, {});
    expect(revoked.status).toBe(303);
    expect(revoked.headers.get('location')).toBe(`/?done=revoked&subject=${key?.id}#keys`);
    expect(await new ApiKeyRepo(rt.ctx.store).list()).toHaveLength(0);
    expect((await httpApiCaller(rt.url, secret)('GET', '/subscriptions')).status).toBe(401);
  });

  it('names the refused fields: no label, nothing to open, a past expiry', async () => {
    const res = await post('/console/keys', { label: '', agents: '' });
    expect(res.status).toBe(400);
    const html = await res.text();
    expect(html).toMatch(/id="key-label-error">label: must not be empty/);
    expect(html).toMatch(/id="key-connections-error">connections: must list at least one connection, or give endUserId/);
    const past = await post('/console/keys', { label: 'late', endUserId: 'someone', expiresAt: '2001-01-01T00:00:00Z' });
    expect(past.status).toBe(400);
    expect(await past.text()).toMatch(/id="key-expiresAt-error">expiresAt: must be in the future/);
    expect(await new ApiKeyRepo(rt.ctx.store).list()).toHaveLength(0);
  });
});
