import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page } from 'puppeteer-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchBrowser } from '../helpers/browser';
import { startFakeOAuthServer, type FakeOAuthServer } from '../helpers/fake-oauth-server';
import { freePort, startLocalProcess, type RunningLocal } from '../helpers/local-process';
import { httpApiCaller } from '../helpers/platform-api-caller';

const key = 'k'.repeat(40);

/**
 * The connect page in Debian's headless Chromium, served by `npm start` with the code host's
 * OAuth pointed at the fake authorization server: the platform asks for a page, the end user
 * opens it, chooses the code host, approves there and lands on "connected".
 */
describe('npm start: an end user connects through the connect page in a browser', () => {
  let oauth: FakeOAuthServer;
  let running: RunningLocal;
  let browser: Browser;
  let page: Page;

  beforeAll(async () => {
    oauth = await startFakeOAuthServer();
    const port = await freePort();
    running = await startLocalProcess(
      {
        DATA_DIR: mkdtempSync(join(tmpdir(), 'connect-page-')),
        PORT: String(port),
        PUBLIC_URL: `http://127.0.0.1:${port}`,
        PLATFORM_API_KEY: key,
        DISPATCH_SIGNING_SECRET: 's'.repeat(40),
        GITHUB_OAUTH_URL: oauth.url,
        GITHUB_API_URL: oauth.url,
        GITHUB_CLIENT_ID: oauth.clientId,
        GITHUB_CLIENT_SECRET: oauth.clientSecret,
        POLL_INTERVAL_SECONDS: '3600',
      },
      // A loaded machine takes long to start the runtime.
      90_000,
    );
    browser = await launchBrowser();
    page = await browser.newPage();
  }, 150_000);
  afterAll(async () => {
    await browser?.close();
    await running?.stop();
    await oauth?.close();
  });

  const api = httpApiCaller(() => running.url, key);

  it('chooses the code host, authorizes, lands on "connected"; the connection names the end user; the link then is refused', async () => {
    const session = await api('POST', '/connect/sessions', { endUserId: 'end-user-77', providers: ['github'] });
    expect(session.status).toBe(201);
    const url = session.body.url as string;

    const opened = await page.goto(url);
    expect(opened?.status()).toBe(200);
    const html = await page.content();
    expect(html).not.toContain(key);
    // Reachable from the keyboard: the choice is a button, the token field has its label.
    expect(await page.$eval('label[for="token-token"]', (l) => l.textContent)).toContain('fine-grained token');
    await page.focus('button[name="choice"][value="github"]');
    await Promise.all([page.waitForNavigation({ waitUntil: 'load' }), page.keyboard.press('Enter')]);
    expect(await page.$eval('h1', (h) => h.textContent)).toBe('Connected to GitHub');

    const listed = await api('GET', '/connections?endUserId=end-user-77');
    const connections = listed.body.connections as { id: string; endUserId: string; authMethod: string }[];
    expect(connections).toHaveLength(1);
    expect(connections[0]).toMatchObject({ endUserId: 'end-user-77', authMethod: 'oauth' });
    expect(await page.content()).toContain(connections[0]?.id);

    const again = await page.goto(url);
    expect(again?.status()).toBe(409);
    expect(await page.$eval('h1', (h) => h.textContent)).toBe('This connect link was already used');
  }, 60_000);
});
