import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startFakeGitHubApp, type FakeGitHubApp } from '../helpers/fake-github-app';
import { AwsWorld } from './harness/aws-world';
import { httpClient } from './harness/http-client';

const platformKey = 'aws-mode-platform-key-manifest-0123456789';

let world: AwsWorld;
let github: FakeGitHubApp;

beforeAll(async () => {
  github = await startFakeGitHubApp();
  world = await AwsWorld.start({
    settings: { githubApiUrl: github.url, githubOAuthUrl: github.url },
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

describe('AWS mode: the GitHub App made in one step', () => {
  it("the manifest callback on the real OAuth handler keeps the App's key, client secret and webhook secret in the stack's secrets, and names the deploy settings", async () => {
    const from = world.calls.length;
    const browser = httpClient(world.url);
    // The suite's one synthesized template names an App's ids, so the App made here replaces that one.
    const started = await httpClient(world.url, platformKey).call('POST', '/github-app/manifest', { replace: true });
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
      kept: {
        inUse: false,
        settings: { githubAppId: String(github.app.appId), githubAppSlug: github.app.slug, githubAppClientId: github.app.clientId },
        nextStep: expect.stringContaining('deploy again'),
      },
    });

    const env = world.envOf('oauth');
    expect(world.secrets.valueOf(env.GITHUB_APP_PRIVATE_KEY_SECRET_ARN ?? '')).toBe(github.app.privateKeyPem);
    expect(world.secrets.valueOf(env.GITHUB_APP_CLIENT_SECRET_ARN ?? '')).toBe(github.app.clientSecret);
    expect(world.secrets.valueOf(env.GITHUB_APP_WEBHOOK_SECRET_ARN ?? '')).toBe(github.app.webhookSecret);
    expect(world.actionsSince(from, 'oauth')).toEqual(expect.arrayContaining(['oauth secretsmanager:PutSecretValue']));
    // The state was taken: the same return again is refused.
    expect((await browser.call('GET', made.headers.get('location') ?? '')).status).toBe(400);
  });
});
