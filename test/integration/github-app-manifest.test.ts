import { existsSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { routes } from '../../functions/oauth/routes';
import { keptGithubAppEnvironment, keptGithubAppFile, localGithubAppKeeper } from '../../shared/adapters/local/kept-github-app';
import { createRouter } from '../../shared/http/router';
import type { HttpResponse } from '../../shared/http/types';
import type { AppContext } from '../../shared/ports/app-context';
import { appManifestEvents, appManifestPermissions } from '../../shared/providers/github/app/manifest/manifest-grants';
import { ConnectionRepo } from '../../shared/store/connection-repo';
import { startFakeHttp, type FakeResponse, type FakeServer } from '../helpers/fake-http';
import { appPublicUrl, appReturnOrigin, githubAppTestContext, type GitHubAppTestContext } from '../helpers/github-app-context';
import { testContext, testPlatformKey, type TestContext } from '../helpers/test-context';

/** No App configured: the manifest flow is what makes it. */
const noApp = {
  GITHUB_APP_ID: '',
  GITHUB_APP_SLUG: '',
  GITHUB_APP_CLIENT_ID: '',
  GITHUB_APP_CLIENT_SECRET: '',
  GITHUB_APP_PRIVATE_KEY: '',
};

function api(ctx: AppContext) {
  const handle = createRouter(routes(ctx), { platformApiKey: ctx.platformApiKey });
  return {
    makeApp: (body: unknown = {}) =>
      handle({
        method: 'POST',
        path: '/github-app/manifest',
        headers: { authorization: `Bearer ${testPlatformKey}`, 'content-type': 'application/json' },
        query: new URLSearchParams(),
        body: Buffer.from(JSON.stringify(body)),
      }),
    /** The browser at one of our pages (`accept` as a browser's, or as a program's). */
    open: (url: string, accept = 'application/json') => {
      const u = new URL(url, appPublicUrl);
      return handle({ method: 'GET', path: u.pathname, headers: { accept }, query: u.searchParams, body: Buffer.alloc(0) });
    },
  };
}

function json(res: HttpResponse): Record<string, unknown> {
  return JSON.parse(String(res.body)) as Record<string, unknown>;
}

const unescapeHtml = (s: string) => s.replace(/&#(\d+);/g, (_, n: string) => String.fromCharCode(Number(n)));

/** What the page's form posts, and where: read from the page as a browser would submit it. */
function formOf(page: HttpResponse): { action: string; manifest: Record<string, unknown> } {
  const html = String(page.body);
  const action = /<form id="manifest" method="post" action="([^"]+)">/.exec(html)?.[1];
  const manifest = /<input type="hidden" name="manifest" value="([^"]+)">/.exec(html)?.[1];
  if (!action || !manifest) throw new Error(`no manifest form in: ${html}`);
  return { action: unescapeHtml(action), manifest: JSON.parse(unescapeHtml(manifest)) as Record<string, unknown> };
}

/** POST /github-app/manifest, then the page it names: the form the browser would submit. */
async function startFlow(ctx: AppContext, body: unknown = {}): Promise<{ url: string; form: ReturnType<typeof formOf> }> {
  const started = await api(ctx).makeApp(body);
  expect(started.status, String(started.body)).toBe(200);
  const { url } = json(started) as { url: string };
  const page = await api(ctx).open(url, 'text/html');
  expect(page.status, String(page.body)).toBe(200);
  return { url, form: formOf(page) };
}

/** The browser posts the form to GitHub, which makes the App and sends it back with a code: where to. */
async function postToGitHub(form: { action: string; manifest: Record<string, unknown> }): Promise<string> {
  const res = await fetch(form.action, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ manifest: JSON.stringify(form.manifest) }),
    redirect: 'manual',
  });
  expect(res.status).toBe(302);
  return res.headers.get('location') ?? '';
}

describe('the GitHub App made in one step (manifest flow)', () => {
  let t: GitHubAppTestContext;
  let dataDir: string;
  beforeEach(async () => {
    t = await githubAppTestContext(noApp);
    dataDir = mkdtempSync(join(tmpdir(), 'manifest-'));
    t.ctx.keepGithubApp = localGithubAppKeeper(dataDir, t.ctx.config.github);
  });
  afterEach(async () => {
    await t.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it("answers the URL of a page that posts the manifest (the steps' and triggers' permissions and events, the App's webhook and callbacks) to GitHub's new App page", async () => {
    const started = await api(t.ctx).makeApp({ name: 'Acme agents' });
    expect(started.status).toBe(200);
    expect(started.headers?.['cache-control']).toBe('no-store');
    const { url, expiresAt } = json(started) as { url: string; expiresAt: string };
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:8998\/github-app\/manifest\/start\?state=[\w-]{43}$/);
    expect(Date.parse(expiresAt) - t.clock.now()).toBe(10 * 60 * 1000);
    const state = new URL(url).searchParams.get('state');

    const page = await api(t.ctx).open(url, 'text/html');
    expect(page.headers?.['content-security-policy']).toContain(`form-action ${t.fake.url}`);
    const form = formOf(page);
    expect(form.action).toBe(`${t.fake.url}/settings/apps/new?state=${state}`);
    expect(form.manifest).toEqual({
      name: 'Acme agents',
      url: appPublicUrl,
      hook_attributes: { url: `${appPublicUrl}/webhooks/github/app`, active: true },
      redirect_url: `${appPublicUrl}/github-app/manifest/callback`,
      callback_urls: [`${appPublicUrl}/oauth/github-app/callback`],
      request_oauth_on_install: true,
      setup_on_update: false,
      public: false,
      default_permissions: appManifestPermissions(),
      default_events: appManifestEvents(),
    });
    // What the tool steps write and the triggers are delivered under; no hook permission (the App has its webhook).
    expect(form.manifest.default_permissions).toMatchObject({
      issues: 'write',
      pull_requests: 'write',
      contents: 'write',
      metadata: 'read',
    });
    expect(form.manifest.default_permissions).not.toHaveProperty('repository_hooks');
    expect(form.manifest.default_events).toEqual(expect.arrayContaining(['issues', 'pull_request', 'push', 'workflow_run']));
    // The page is served once: a second opening would make a second App no callback could keep.
    expect((await api(t.ctx).open(url)).status).toBe(400);
  });

  it("an organization's App is made on the organization's new App page", async () => {
    const { url, form } = await startFlow(t.ctx, { organization: 'octo-org' });
    const state = new URL(url).searchParams.get('state');
    expect(form.action).toBe(`${t.fake.url}/organizations/octo-org/settings/apps/new?state=${state}`);
  });

  it("the callback trades GitHub's code for the App and keeps it: the App's install flow and its JWT work at once, with no further setting", async () => {
    const { form } = await startFlow(t.ctx);
    const back = await postToGitHub(form);
    expect(back).toMatch(/^http:\/\/127\.0\.0\.1:8998\/github-app\/manifest\/callback\?code=/);
    const done = await api(t.ctx).open(back);
    expect(done.status, String(done.body)).toBe(200);
    expect(json(done)).toMatchObject({ appId: String(t.fake.app.appId), slug: t.fake.app.slug, kept: { inUse: true } });
    // Never a secret in the answer.
    for (const secret of [t.fake.app.clientSecret, t.fake.app.webhookSecret, t.fake.app.privateKeyPem.split('\n')[1] ?? '']) {
      expect(String(done.body)).not.toContain(secret);
    }
    expect(t.fake.requestsTo(/^\/app-manifests\//)).toHaveLength(1);

    // Kept in the data directory, readable by its owner only, and read again at the next start.
    expect(statSync(keptGithubAppFile(dataDir)).mode & 0o777).toBe(0o600);
    expect(keptGithubAppEnvironment(dataDir)).toEqual({
      GITHUB_APP_ID: String(t.fake.app.appId),
      GITHUB_APP_SLUG: t.fake.app.slug,
      GITHUB_APP_CLIENT_ID: t.fake.app.clientId,
      GITHUB_APP_CLIENT_SECRET: t.fake.app.clientSecret,
      GITHUB_APP_PRIVATE_KEY: t.fake.app.privateKeyPem,
      GITHUB_APP_WEBHOOK_SECRET: t.fake.app.webhookSecret,
    });

    // In use now: an installation connects through the App, read back with a JWT of the kept key.
    t.fake.app.addInstallation({ id: 31, account: { login: 'octo-org', id: 7001, type: 'Organization' } });
    const connected = await t.connectApp({ login: 'mona', installationId: 31 }, { returnTo: `${appReturnOrigin}/done` });
    expect(connected.status, String(connected.body)).toBe(302);
    const id = new URL(connected.headers?.location ?? '').searchParams.get('connectionId') ?? '';
    expect(await new ConnectionRepo(t.ctx.store).get(id)).toMatchObject({ authMethod: 'github_app', installation: { id: 31 } });
    expect(await t.container().installations.token(31)).toMatchObject({ token: expect.stringMatching(/^ghs_/) });
    expect(t.fake.app.refusedJwts).toEqual([]);
    expect(await t.ctx.githubAppSecret('webhookSecret')).toBe(t.fake.app.webhookSecret);
  });

  it('a replayed callback is refused before GitHub is asked again, and an expired state likewise', async () => {
    const first = await startFlow(t.ctx);
    const back = await postToGitHub(first.form);
    expect((await api(t.ctx).open(back)).status).toBe(200);
    const replayed = await api(t.ctx).open(back);
    expect(replayed.status).toBe(400);
    expect(json(replayed)).toMatchObject({ error: { code: 'invalid_input' } });

    const second = await startFlow(t.ctx, { replace: true });
    const late = await postToGitHub(second.form);
    t.clock.advance(10 * 60 * 1000 + 1);
    const expired = await api(t.ctx).open(late, 'text/html');
    expect(expired.status).toBe(400);
    expect(String(expired.body)).toContain('cannot be used');
    // One conversion only: the first callback's.
    expect(t.fake.requestsTo(/^\/app-manifests\//)).toHaveLength(1);
  });

  it('a callback whose state was never served as the page is refused: the state alone does not make an App', async () => {
    const started = await api(t.ctx).makeApp();
    const state = new URL(String(json(started).url)).searchParams.get('state') ?? '';
    const res = await api(t.ctx).open(`/github-app/manifest/callback?code=abc&state=${state}`);
    expect(res.status).toBe(400);
    expect(t.fake.requestsTo(/^\/app-manifests\//)).toHaveLength(0);
  });

  it('while an App is configured a new one is refused (409, naming replace) unless replace is sent', async () => {
    const { form } = await startFlow(t.ctx);
    await api(t.ctx).open(await postToGitHub(form));
    const again = await api(t.ctx).makeApp({});
    expect(again.status).toBe(409);
    expect(json(again)).toMatchObject({ error: { code: 'conflict', details: { field: 'replace' } } });
    expect((await api(t.ctx).makeApp({ replace: true })).status).toBe(200);
  });

  it('bad input names the field', async () => {
    const res = await api(t.ctx).makeApp({ organization: 'not an org!' });
    expect(res.status).toBe(400);
    expect(String(res.body)).toContain('organization');
    expect((await api(t.ctx).makeApp({ name: 'x'.repeat(35) })).status).toBe(400);
  });
});

describe("the manifest's conversion answer is checked", () => {
  let t: TestContext;
  let github: FakeServer;
  let answer: FakeResponse;
  let dataDir: string;
  beforeEach(async () => {
    github = await startFakeHttp((req) =>
      req.method === 'POST' && /^\/app-manifests\/[^/]+\/conversions$/.test(req.path) ? answer : { status: 404, body: {} },
    );
    t = await testContext({ PUBLIC_URL: appPublicUrl, GITHUB_API_URL: github.url, GITHUB_OAUTH_URL: github.url });
    dataDir = mkdtempSync(join(tmpdir(), 'manifest-'));
    t.ctx.keepGithubApp = localGithubAppKeeper(dataDir, t.ctx.config.github);
  });
  afterEach(async () => {
    t.close();
    await github.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  /** The flow up to GitHub's redirect, then our callback with a code of GitHub's. */
  async function callbackWith(response: FakeResponse): Promise<HttpResponse> {
    answer = response;
    const { url } = await startFlow(t.ctx);
    const state = new URL(url).searchParams.get('state') ?? '';
    return api(t.ctx).open(`/github-app/manifest/callback?code=c0de&state=${state}`);
  }

  const good = {
    id: 9,
    slug: 'acme',
    client_id: 'Iv1.abc',
    client_secret: 'cs',
    webhook_secret: 'ws',
    pem: '-----BEGIN RSA PRIVATE KEY-----\nMII\n-----END RSA PRIVATE KEY-----\n',
  };

  function expectNothingKept(): void {
    expect(existsSync(keptGithubAppFile(dataDir))).toBe(false);
    expect(t.ctx.config.github.app).toBeUndefined();
  }

  it('an answer of the wrong shape is 502 naming each field, and nothing is kept', async () => {
    const res = await callbackWith({ status: 201, body: { ...good, id: 'nine', pem: 'not a key', webhook_secret: null } });
    expect(res.status).toBe(502);
    const error = json(res).error as { code: string; message: string; details: { fields: string[] } };
    expect(error.code).toBe('upstream_error');
    expect(error.details.fields).toEqual(expect.arrayContaining(['id', 'pem', 'webhook_secret']));
    expect(error.message).toContain('webhook_secret');
    expectNothingKept();
  });

  it('an answer larger than 64 KB is 502 without reading it further, and nothing is kept', async () => {
    const res = await callbackWith({ status: 201, body: { ...good, description: 'x'.repeat(70 * 1024) } });
    expect(res.status).toBe(502);
    expect(String(json(res).error && (json(res).error as { message: string }).message)).toContain('larger than 65536 bytes');
    expectNothingKept();
  });

  it('a redirect is not followed, and a code GitHub does not take says so', async () => {
    const redirected = await callbackWith({ status: 307, headers: { location: 'http://169.254.169.254/' } });
    expect(redirected.status).toBe(502);
    expect(String(redirected.body)).toContain('not followed');
    const refused = await callbackWith({ status: 404, body: { message: 'Not Found' } });
    expect(refused.status).toBe(502);
    expect(String(refused.body)).toContain('older than an hour');
    expectNothingKept();
  });

  it('a good answer is kept with the code sent once, unauthenticated, to the conversion', async () => {
    const res = await callbackWith({ status: 201, body: good });
    expect(res.status, String(res.body)).toBe(200);
    const sent = github.requests.filter((r) => r.path === '/app-manifests/c0de/conversions');
    expect(sent).toHaveLength(1);
    expect(sent[0]?.headers.authorization).toBeUndefined();
    expect(t.ctx.config.github.app).toMatchObject({ appId: '9', slug: 'acme', clientId: 'Iv1.abc' });
  });
});
