import type { Browser, Page } from 'puppeteer-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { localJobs } from '../../local/jobs';
import { launchBrowser } from '../helpers/browser';
import { FakeAgentRuntime } from '../helpers/fake-agent-runtime';
import { FakeGitHub, type FakeHook } from '../helpers/fake-github-server';
import { httpApiCaller } from '../helpers/platform-api-caller';
import { platformKey, startRuntime, subscribeOverApi, type TestRuntime } from '../helpers/runtime-support';
import { examplePayload } from '../helpers/signed-delivery';

/**
 * The console in a real browser: Debian's headless Chromium driving the
 * local runtime in-process (the browser is the child process that puts this file in e2e).
 * Background jobs are off: the test runs the consumer itself, so every step ends in a
 * known state without waiting on timers.
 */
const token = 'ghp_consoleBrowserTestToken000000000000000';
const xss = '<script>window.__xss = 1</script><img src=x onerror="window.__xss = 2">';
let github: FakeGitHub;
let agent: FakeAgentRuntime;
let rt: TestRuntime;
let browser: Browser;
let page: Page;
let tenant: { connectionId: string; subscriptionId: string; endpointId: string; hook: FakeHook };

/**
 * One dispatch round, finished: `runOnce` may return while a delivery is still in flight (a
 * message arriving ends its wait), so the page would be read before the attempt is recorded.
 */
async function consume(): Promise<void> {
  const dispatch = localJobs(rt.ctx, rt.queues)[0]!;
  await dispatch.runOnce();
  await dispatch.drain?.();
}

async function deliverIssue(guid: string, title: string): Promise<void> {
  const payload = examplePayload('issues', 'opened') as { issue: { title: string } };
  payload.issue.title = title;
  const res = await github.deliver(tenant.hook, 'issues', JSON.stringify(payload), guid);
  expect(res.status).toBe(202);
}

async function text(selector: string): Promise<string> {
  return page.$eval(selector, (el) => el.textContent ?? '');
}

beforeAll(async () => {
  github = await FakeGitHub.start();
  github.addUser(token, 'Codertocat');
  github.gists.set('Codertocat', [
    {
      id: 'aa5a315d61ae9438b18d',
      description: 'console gist',
      public: true,
      files: {},
      html_url: 'https://gist.github.com/aa5a315d61ae9438b18d',
    },
  ]);
  agent = await FakeAgentRuntime.start();
  rt = await startRuntime({ GITHUB_API_URL: github.url, AGENT_RUNTIME_URL: agent.url }, false);
  tenant = await subscribeOverApi(rt.url, github, token);
  browser = await launchBrowser();
  page = await browser.newPage();
  page.on('dialog', (d) => void d.accept());
});
afterAll(async () => {
  await browser?.close();
  await rt?.dispose();
  await agent?.close();
  await github?.close();
});

describe('the console in a browser', () => {
  it('asks for the platform key, refuses a wrong one, and signs in with the right one into an HttpOnly SameSite=Strict session', async () => {
    const first = await page.goto(`${rt.url}/`);
    expect(first?.status()).toBe(401);
    await page.type('#key', 'not-the-key-000000000000000000000000000');
    await Promise.all([page.waitForNavigation(), page.click('#login button[type=submit]')]);
    expect(await text('#login-error')).toContain('not the platform key');
    expect(await page.$('#connections')).toBeNull();

    await page.type('#key', platformKey);
    await Promise.all([page.waitForNavigation(), page.click('#login button[type=submit]')]);
    expect(await page.$('#connections')).not.toBeNull();
    const [cookie] = await browser.cookies();
    expect(cookie).toMatchObject({ name: 'console_session', httpOnly: true, sameSite: 'Strict' });
  });

  it('shows the connection and the subscription with its webhook URL', async () => {
    expect(await text(`#connections tr[data-connection="${tenant.connectionId}"]`)).toContain('Codertocat');
    const sub = await text(`#subscriptions tr[data-subscription="${tenant.subscriptionId}"]`);
    expect(sub).toContain('github.new_issue');
    expect(sub).toContain(`/webhooks/github/${tenant.endpointId}`);
    expect(sub).toContain('none yet');
  });

  it('lists scoped keys by id, label and connections, never the key, the label inert however hostile', async () => {
    const made = await httpApiCaller(rt.url, platformKey)('POST', '/keys', { label: xss, connections: [tenant.connectionId] });
    expect(made.status).toBe(201);
    await page.reload();
    const row = await text(`#keys tr[data-key="${made.body.id}"]`);
    expect(row).toContain(tenant.connectionId);
    expect(row).toContain('<script>');
    expect(await page.content()).not.toContain(String(made.body.key).split('.')[1]);
    expect(await page.evaluate('window.__xss')).toBeUndefined();
  });

  it('shows an arriving event with its payload, inert however hostile, and its delivery', async () => {
    await deliverIssue('console-xss-1', xss);
    await page.reload();
    const row = await page.$$('#events tr[data-event]');
    expect(row).toHaveLength(1);
    expect(await text('#events td.status')).toContain('queued');

    await consume();
    expect(agent.events()).toHaveLength(1);
    await page.reload();
    expect(await text('#events td.status')).toContain('delivered');
    expect(await text(`#subscriptions tr[data-subscription="${tenant.subscriptionId}"]`)).toContain('delivered');
    // The payload is shown as text: the title's markup is in it, and none of it ran or became elements.
    expect(await text('#events pre.payload')).toContain(JSON.stringify(xss));
    expect(await page.$$eval('#events pre.payload *', (els) => els.length)).toBe(0);
    expect(await page.evaluate('window.__xss')).toBeUndefined();
  });

  it('replays an event: the agent runtime receives it again, as a new event', async () => {
    const originalId = String(agent.events()[0]?.id);
    await Promise.all([page.waitForNavigation(), page.click(`#events tr[data-event="${originalId}"] form.replay button`)]);
    // The notice is where the button was: in the events section.
    expect(await text('#events #notice')).toContain('queued again');
    expect(await text('#events')).toContain(`replay of ${originalId}`);
    await consume();
    const [first, again] = agent.events();
    expect(agent.events()).toHaveLength(2);
    expect(again?.id).not.toBe(first?.id);
    expect(again?.replayOf).toBe(originalId);
    expect({ ...again, id: undefined, replayOf: undefined }).toEqual({ ...first, id: undefined });
    await page.reload();
    expect(await text(`#events tr[data-event="${String(again?.id)}"] td.status`)).toContain('delivered');
  });

  it('shows a dead letter and redrives it to the agent runtime', async () => {
    await deliverIssue('console-dead-1', 'an issue nobody took');
    // The queue's own dead-lettering: received up to its limit without being deleted, then moved.
    for (let i = 0; i <= rt.queues.queue.maxReceives; i++) await rt.queues.queue.receive(10, 0);
    expect(rt.queues.dlq.size()).toBe(1);
    await page.reload();
    const [dead] = await rt.queues.deadLetters.list(1);
    const row = `#dlq tr[data-dead-letter="${dead?.messageId}"]`;
    expect(await text(row)).toContain('github.new_issue');
    expect(await text('#events')).toContain('dead lettered');

    await Promise.all([page.waitForNavigation(), page.click(`${row} form.redrive button`)]);
    expect(await text('#dlq #notice')).toContain('sent back');
    expect(rt.queues.dlq.size()).toBe(0);
    await consume();
    expect(agent.events().map((e) => (e.event as { issue?: { title?: string } }).issue?.title)).toContain('an issue nobody took');
    await page.reload();
    expect(await text('#dlq')).toContain('Empty');
  });

  it('runs a tool step from the form generated from its input schema and shows the result', async () => {
    // Picking the tool opens its form (the console's script, allowed by the CSP's nonce).
    await Promise.all([page.waitForNavigation(), page.select('#tool-pick', 'github.list_gists_for_user')]);
    expect(await page.$('#tool-form #f-max_items')).not.toBeNull();
    expect(await page.$eval('#f-connection', (el) => (el as unknown as { value: string }).value)).toBe(tenant.connectionId);
    await page.type('#f-max_items', '5');
    await Promise.all([page.waitForNavigation(), page.click('#tool-form button[type=submit]')]);
    const result = JSON.parse(await text('#tool-result pre')) as { ok: boolean; data: unknown };
    expect(result).toMatchObject({ ok: true });
    expect(JSON.stringify(result.data)).toContain('console gist');

    // Bad input comes back as the step's own error, naming the field.
    await page.type('#f-username', 'not a login!');
    await Promise.all([page.waitForNavigation(), page.click('#tool-form button[type=submit]')]);
    const refused = JSON.parse(await text('#tool-result pre')) as { ok: boolean; error: { code: string; message: string } };
    expect(refused).toMatchObject({ ok: false, error: { code: 'invalid_input' } });
    expect(refused.error.message).toContain('input.username');
  });

  it('refuses actions without the CSRF token or from another site, and takes a Bearer header instead of a session', async () => {
    const [cookie] = await browser.cookies();
    const session = `${cookie?.name}=${cookie?.value}`;
    const eventId = String(agent.events()[0]?.id);
    const post = (headers: Record<string, string>, body: string) =>
      fetch(`${rt.url}/console/events/${eventId}/replay`, {
        method: 'POST',
        redirect: 'manual',
        headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
        body,
      });
    const csrf = await page.$eval('input[name=csrf]', (el) => (el as unknown as { value: string }).value);
    const before = rt.queues.queue.size();
    expect((await post({ cookie: session }, '')).status).toBe(403);
    expect((await post({ cookie: session, origin: 'https://evil.example' }, `csrf=${csrf}`)).status).toBe(403);
    expect((await post({ cookie: session, 'sec-fetch-site': 'cross-site' }, `csrf=${csrf}`)).status).toBe(403);
    expect((await post({}, `csrf=${csrf}`)).status).toBe(401);
    expect(rt.queues.queue.size()).toBe(before);
    expect((await post({ authorization: `Bearer ${platformKey}` }, '')).status).toBe(303);
    expect(rt.queues.queue.size()).toBe(before + 1);

    const withBearer = await fetch(`${rt.url}/`, { headers: { authorization: `Bearer ${platformKey}`, accept: 'text/html' } });
    expect(withBearer.status).toBe(200);
    expect(withBearer.headers.get('content-security-policy')).toMatch(/script-src 'nonce-[A-Za-z0-9_-]+'; style-src 'self'/);
    expect(await withBearer.text()).toContain('id="connections"');
    const api = await fetch(`${rt.url}/`);
    expect(api.status).toBe(401);
    expect(((await api.json()) as { error: { code: string } }).error.code).toBe('unauthorized');
  });

  it('says why a retrying event waits and when it is tried next, with each attempt and its answer', async () => {
    agent.answers.push({ status: 503, body: { error: 'warming up' } });
    await deliverIssue('console-retry-1', 'an issue tried twice');
    await consume();
    await page.goto(`${rt.url}/?status=retrying#events`);
    const rows = await page.$$('#events tr[data-event]');
    expect(rows).toHaveLength(1);
    const status = await text('#events tr[data-event] td.status');
    expect(status).toContain('retrying (1 try)');
    expect(status).toContain('HTTP 503');
    expect(status).toContain('next try');
    const attempts = await text('#events details.attempts-detail table.attempts');
    expect(attempts).toContain('503');
    expect(attempts).toContain('failed');
  });

  it('filters the events and pages through them; a bad filter is named', async () => {
    await page.goto(`${rt.url}/#events`);
    await page.select('#event-filters select[name=status]', 'delivered');
    await Promise.all([page.waitForNavigation(), page.click('#event-filters button[type=submit]')]);
    expect(new URL(page.url()).searchParams.get('status')).toBe('delivered');
    const statuses = await page.$$eval('#events tr[data-event] td.status', (els) => els.map((e) => e.textContent ?? ''));
    expect(statuses.length).toBeGreaterThanOrEqual(2);
    expect(statuses.every((s) => s.includes('delivered'))).toBe(true);

    await page.goto(`${rt.url}/?limit=1#events`);
    const firstId = await page.$eval('#events tr[data-event]', (el) => el.getAttribute('data-event'));
    await Promise.all([page.waitForNavigation(), page.click('#events-older')]);
    expect(await page.$$('#events tr[data-event]')).toHaveLength(1);
    expect(await page.$eval('#events tr[data-event]', (el) => el.getAttribute('data-event'))).not.toBe(firstId);
    expect(await page.$('#events-newest')).not.toBeNull();

    await page.goto(`${rt.url}/?repository=not-a-repository#events`);
    expect(await text('#filter-error')).toContain('repository: expected owner/name');
  });

  it('updates the events live: a new event shows up without a reload', async () => {
    await page.goto(`${rt.url}/#events`);
    await page.evaluate('window.__sameDocument = true');
    const before = (await page.$$('#events tr[data-event]')).length;
    await deliverIssue('console-live-1', 'an issue seen live');
    await page.waitForFunction(`document.querySelectorAll('#events tr[data-event]').length > ${before}`, { timeout: 15_000 });
    expect(await page.evaluate('window.__sameDocument')).toBe(true);
    expect(await text('#events tbody')).toContain('queued');
  });

  it('shows times with their zone and fits a narrow window', async () => {
    await page.setViewport({ width: 375, height: 800 });
    try {
      await page.goto(`${rt.url}/#events`);
      const shown = await text('#events tr[data-event] time');
      expect(shown).toMatch(/\b(UTC|GMT[+-]?\d*|[A-Z]{3,5})$/);
      const width = await page.evaluate('document.documentElement.scrollWidth');
      expect(width).toBeLessThanOrEqual(375);
    } finally {
      await page.setViewport({ width: 1280, height: 800 });
    }
  });

  it('signs out: the session no longer opens the console', async () => {
    const [cookie] = await browser.cookies();
    await Promise.all([page.waitForNavigation(), page.click('header form button')]);
    expect(await page.$('#key')).not.toBeNull();
    const stale = await fetch(`${rt.url}/`, { headers: { cookie: `${cookie?.name}=${cookie?.value}`, accept: 'text/html' } });
    expect(stale.status).toBe(401);
  });
});
