import type { Browser, Page } from 'puppeteer-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiKeyRepo } from '../../shared/store/api-key-repo';
import { ConnectionRepo } from '../../shared/store/connection-repo';
import { SubscriptionRepo } from '../../shared/store/subscription-repo';
import { launchBrowser } from '../helpers/browser';
import { FakeGitHub } from '../helpers/fake-github-server';
import { freePort } from '../helpers/local-process';
import { platformKey, repository, startRuntime, type TestRuntime } from '../helpers/runtime-support';

/**
 * Acting from the console in Debian's headless Chromium, on the local runtime as `npm start`
 * runs it (in-process, its PUBLIC_URL the address the browser uses): connect an account
 * through the connect page and come back to it listed, subscribe a trigger from its form (a
 * refused field named under it), send the trigger's example, make a key shown once and
 * revoke it, all without a horizontal scroll at 1280 px.
 */
const token = 'ghp_consoleActBrowserToken00000000000000';
let github: FakeGitHub;
let rt: TestRuntime;
let browser: Browser;
let page: Page;

const text = (selector: string) => page.$eval(selector, (el) => el.textContent ?? '');
const click = (selector: string) => Promise.all([page.waitForNavigation(), page.click(selector)]);

beforeAll(async () => {
  github = await FakeGitHub.start();
  github.addUser(token, 'Codertocat');
  const port = await freePort();
  rt = await startRuntime({ GITHUB_API_URL: github.url, PORT: String(port), PUBLIC_URL: `http://127.0.0.1:${port}` }, false);
  browser = await launchBrowser();
  page = await browser.newPage();
  await page.setViewport({ width: 1280, height: 800 });
  page.on('dialog', (d) => void d.accept());
  await page.goto(`${rt.url}/`);
  await page.type('#key', platformKey);
  await click('#login button[type=submit]');
}, 60_000);
afterAll(async () => {
  await browser?.close();
  await rt?.dispose();
  await github?.close();
});

describe('acting from the console in a browser', () => {
  it('connects through the connect page and comes back to the console, the new connection listed', async () => {
    await page.click('#connections details.act summary');
    await page.$eval('#connect-endUserId', (el) => {
      (el as unknown as { value: string }).value = '';
    });
    await page.type('#connect-endUserId', 'console-user');
    await click('#connect-form button[type=submit]');
    expect(new URL(page.url()).pathname).toMatch(/^\/connect\/[A-Za-z0-9_-]+$/);
    expect(await page.content()).not.toContain(platformKey);

    await page.type('#token-token', token);
    await click('#token-token ~ p button[type=submit]');
    const [connection] = await new ConnectionRepo(rt.ctx.store).list();
    expect(connection).toMatchObject({ accountLogin: 'Codertocat', endUserId: 'console-user' });
    expect(new URL(page.url()).pathname).toBe('/');
    expect(await text('#connections #notice')).toContain(`Connected: ${connection?.id}`);
    expect(await text(`#connections tr[data-connection="${connection?.id}"]`)).toContain('console-user');
  }, 30_000);

  it('subscribes a trigger from its form, a refused field named under it, then sends its example', async () => {
    // Choosing the trigger opens its form (the script submits the choice; without it, "Next" does).
    await page.click('#subscribe summary');
    await Promise.all([page.waitForNavigation(), page.select('#subscribe-pick', 'github.new_issue')]);
    expect(await page.$('#subscribe-filter-labels')).not.toBeNull();
    expect(await page.$('#subscribe-filter-branches')).toBeNull();

    await page.type('#subscribe-repository', 'not a repository');
    await page.type('#subscribe-agentId', 'console-agent');
    await click('#subscribe-form button[type=submit]');
    expect(await text('#subscribe-repository-error')).toContain('repository: must be "owner/name"');
    expect(await page.$eval('#subscribe-repository', (el) => el.getAttribute('aria-describedby'))).toBe('subscribe-repository-error');

    await page.$eval('#subscribe-repository', (el) => {
      (el as unknown as { value: string }).value = '';
    });
    await page.type('#subscribe-repository', repository);
    await page.type('#subscribe-filter-labels', 'bug');
    await click('#subscribe-form button[type=submit]');
    const [sub] = await new SubscriptionRepo(rt.ctx.store).list();
    expect(sub).toMatchObject({ trigger: 'github.new_issue', repository, agentId: 'console-agent', filters: { labels: ['bug'] } });
    expect(await text('#subscriptions #notice')).toContain(`Subscribed: ${sub?.id}`);

    const queued = rt.queues.queue.size();
    await click(`#subscriptions tr[data-subscription="${sub?.id}"] form.example button`);
    expect(await text('#subscriptions #notice')).toContain('the intake answered 202');
    expect(rt.queues.queue.size()).toBe(queued + 1);
  }, 30_000);

  it('makes a scoped key shown once, lists it, and revokes it', async () => {
    const [connection] = await new ConnectionRepo(rt.ctx.store).list();
    await page.click('#keys details.act summary');
    await page.type('#key-label', 'browser key');
    await page.click('#key-connection-0');
    await page.type('#key-agents', 'console-agent');
    await click('#key-form button[type=submit]');
    const secret = await page.$eval('#new-key-secret', (el) => (el as unknown as { value: string }).value);
    expect(secret).toMatch(/^aik_/);
    const [key] = await new ApiKeyRepo(rt.ctx.store).list();
    expect(key).toMatchObject({ label: 'browser key', connections: [connection?.id], agents: ['console-agent'] });

    await page.goto(`${rt.url}/#keys`);
    expect(await page.$('#new-key-secret')).toBeNull();
    expect(await page.content()).not.toContain(secret);
    await click(`#keys tr[data-key="${key?.id}"] form.revoke button`);
    expect(await text('#keys #notice')).toContain(`Key ${key?.id} revoked`);
    expect(await new ApiKeyRepo(rt.ctx.store).list()).toHaveLength(0);
  }, 30_000);

  it('fits its tables in a 1280 px window: no horizontal scroll, on the page or in a table', async () => {
    await page.goto(`${rt.url}/?subscribe=github.new_push`);
    expect(await page.evaluate('document.documentElement.scrollWidth')).toBeLessThanOrEqual(1280);
    const overflowing = await page.$$eval('.wide', (els) =>
      els.filter((e) => e.scrollWidth > e.clientWidth).map((e) => e.querySelector('table')?.outerHTML.slice(0, 80)),
    );
    expect(overflowing).toEqual([]);
  });

  it('deletes a subscription from its row', async () => {
    const [sub] = await new SubscriptionRepo(rt.ctx.store).list();
    await page.goto(`${rt.url}/`);
    await click(`#subscriptions tr[data-subscription="${sub?.id}"] form.unsubscribe button`);
    expect(await text('#subscriptions #notice')).toContain(`Subscription ${sub?.id} deleted`);
    expect(await new SubscriptionRepo(rt.ctx.store).list()).toHaveLength(0);
  });
});
