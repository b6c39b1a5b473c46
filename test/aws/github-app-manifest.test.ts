import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { appShot } from '../helpers/app-webhook';
import { startFakeGitHubApp, type FakeGitHubApp } from '../helpers/fake-github-app';
import { noAppRecheckMs } from '../../shared/wiring/app-identity-refresh';
import { AwsWorld } from './harness/aws-world';
import { httpClient } from './harness/http-client';

const platformKey = 'aws-mode-platform-key-manifest-0123456789';

let world: AwsWorld;
let github: FakeGitHubApp;

beforeAll(async () => {
  github = await startFakeGitHubApp();
  world = await AwsWorld.start({
    // The deploy settings name no App: the functions take the one the manifest flow makes from its identity secret.
    settings: { githubApiUrl: github.url, githubOAuthUrl: github.url, githubAppId: '', githubAppSlug: '', githubAppClientId: '' },
    secretValues: { PLATFORM_API_KEY_SECRET_ARN: platformKey },
  });
}, 180_000);
afterAll(async () => {
  await world?.close();
  await github?.close();
});
afterEach(() => {
  // Every AWS call of every function was judged against its role's policy: none may have been refused.
  expect(world.denials()).toEqual([]);
});

const unescapeHtml = (s: string) => s.replace(/&#(\d+);/g, (_, n: string) => String.fromCharCode(Number(n)));

/** A `ping` to the App's one webhook, signed with `secret`, as GitHub sends it. */
function appPing(secret: string) {
  const shot = appShot('ping', { zen: 'Design for failure.', hook_id: 30 }, { installationId: null, secret });
  shot.headers['x-github-hook-installation-target-id'] = String(github.app.appId);
  return fetch(`${world.url}${shot.path}`, { method: 'POST', headers: shot.headers, body: shot.body });
}

describe('AWS mode: the GitHub App made in one step, with no deploy', () => {
  it("before any App is made, the App's webhook is not served by the (now warm) intake", async () => {
    const res = await appPing('no-app-yet-secret-0123456789');
    expect(res.status, await res.text()).toBe(404);
  });

  it("the manifest callback on the real OAuth handler keeps the App in the stack's four secrets, the identity last, and answers it is in use", async () => {
    const from = world.calls.length;
    const browser = httpClient(world.url);
    const started = await httpClient(world.url, platformKey).call('POST', '/github-app/manifest', {});
    expect(started.status, started.text).toBe(200);
    const page = await browser.call('GET', started.body.url as string, undefined, { accept: 'text/html' });
    expect(page.status, page.text).toBe(200);
    const action = unescapeHtml(/<form id="manifest" method="post" action="([^"]+)">/.exec(page.text)?.[1] ?? '');
    const manifest = unescapeHtml(/name="manifest" value="([^"]+)"/.exec(page.text)?.[1] ?? '');
    expect(JSON.parse(manifest)).toMatchObject({ hook_attributes: { url: `${world.url}/webhooks/github/app` } });

    // GitHub makes the App and sends the browser back with a code.
    const made = await fetch(action, { method: 'POST', body: new URLSearchParams({ manifest }), redirect: 'manual' });
    expect(made.status).toBe(302);
    const done = await browser.call('GET', made.headers.get('location') ?? '');
    expect(done.status, done.text).toBe(200);
    expect(done.body).toEqual({
      appId: String(github.app.appId),
      slug: github.app.slug,
      htmlUrl: `https://github.com/apps/${github.app.slug}`,
      owner: 'octocat',
      kept: { inUse: true },
    });

    const env = world.envOf('oauth');
    expect(world.secrets.valueOf(env.GITHUB_APP_PRIVATE_KEY_SECRET_ARN ?? '')).toBe(github.app.privateKeyPem);
    expect(world.secrets.valueOf(env.GITHUB_APP_CLIENT_SECRET_ARN ?? '')).toBe(github.app.clientSecret);
    expect(world.secrets.valueOf(env.GITHUB_APP_WEBHOOK_SECRET_ARN ?? '')).toBe(github.app.webhookSecret);
    expect(JSON.parse(world.secrets.valueOf(env.GITHUB_APP_IDENTITY_SECRET_ARN ?? '') ?? '')).toEqual({
      appId: String(github.app.appId),
      slug: github.app.slug,
      clientId: github.app.clientId,
    });
    const puts = world.calls
      .slice(from)
      .filter((c) => c.checks.some((k) => k.action === 'secretsmanager:PutSecretValue'))
      .map((c) => c.checks.map((k) => k.resource).join(' '));
    expect(puts).toHaveLength(4);
    expect(puts[3]).toContain(env.GITHUB_APP_IDENTITY_SECRET_ARN);
    // The state was taken: the same return again is refused.
    expect((await browser.call('GET', made.headers.get('location') ?? '')).status).toBe(400);
  });

  it("the intake, warm since before the App was made, takes it within a minute: the App's webhook accepts its signature and refuses another", async () => {
    await world.fn('webhook-intake').passTime(noAppRecheckMs);
    const accepted = await appPing(github.app.webhookSecret);
    expect(accepted.status, await accepted.text()).toBe(200);
    const forged = await appPing('another-secret-0123456789abcdef');
    expect(forged.status, await forged.text()).toBe(401);
  });

  it("the App's install flow starts at once in the OAuth function that made it, on the new App's page on GitHub", async () => {
    const platform = httpClient(world.url, platformKey);
    const started = await platform.call('POST', '/oauth/github-app/authorize', {});
    expect(started.status, started.text).toBe(200);
    const atStart = await platform.call('GET', started.body.authorizeUrl as string);
    expect(atStart.status, atStart.text).toBe(302);
    const location = new URL(atStart.headers.get('location') ?? '');
    expect(`${location.origin}${location.pathname}`).toBe(`${github.url}/apps/${github.app.slug}/installations/new`);
  });

  it('a function cold-started afterwards has the App from its first invocation', async () => {
    await world.coldStart('webhook-intake');
    const accepted = await appPing(github.app.webhookSecret);
    expect(accepted.status, await accepted.text()).toBe(200);
    await world.coldStart('oauth');
    const started = await httpClient(world.url, platformKey).call('POST', '/oauth/github-app/authorize', {});
    expect(started.status, started.text).toBe(200);
  });
});
