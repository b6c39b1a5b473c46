import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startFakeContentSnare, type FakeContentSnare } from '../helpers/fake-contentsnare';
import { startFakeOAuthServer, type FakeOAuthServer } from '../helpers/fake-oauth-server';
import { AwsWorld } from './harness/aws-world';
import { httpClient } from './harness/http-client';

const platformKey = 'aws-mode-platform-key-oauth-0123456789ab';
const returnOrigin = 'https://platform.example.test';
const snareScopes = 'read_clients write_clients read_requests write_requests read_templates administration';

let world: AwsWorld;
let oauth: FakeOAuthServer;
let snare: FakeContentSnare;

beforeAll(async () => {
  // One authorization server speaks both providers' dialects; the collection service's API is its own fake.
  oauth = await startFakeOAuthServer();
  snare = await startFakeContentSnare();
  world = await AwsWorld.start({
    settings: {
      githubApiUrl: oauth.url,
      githubOAuthUrl: oauth.url,
      githubClientId: oauth.clientId,
      contentsnareOAuthUrl: oauth.url,
      contentsnareApiUrl: snare.url,
      contentsnareClientId: oauth.clientId,
      allowedReturnOrigins: returnOrigin,
    },
    secretValues: {
      PLATFORM_API_KEY_SECRET_ARN: platformKey,
      GITHUB_CLIENT_SECRET_ARN: oauth.clientSecret,
      CONTENTSNARE_CLIENT_SECRET_ARN: oauth.clientSecret,
    },
  });
}, 180_000);
afterAll(async () => {
  await world?.close();
  await Promise.all([oauth?.close(), snare?.close()]);
});
afterEach(() => {
  // Every AWS call of every function was judged against its role's policy: none may have been refused.
  expect(world.denials()).toEqual([]);
});

/** The browser round trip through the front door: authorize (platform key), our start step, the provider's consent, our callback. */
async function connect(provider: 'github' | 'contentsnare', body: Record<string, unknown>): Promise<string> {
  const browser = httpClient(world.url, platformKey);
  const started = await browser.call('POST', `/oauth/${provider}/authorize`, { returnTo: `${returnOrigin}/done`, ...body });
  expect(started.status, started.text).toBe(200);
  const atStart = await browser.call('GET', started.body.authorizeUrl as string);
  expect(atStart.status, atStart.text).toBe(302);
  const back = await oauth.browse(atStart.headers.get('location') ?? '');
  expect(`${back.origin}${back.pathname}`).toBe(`${world.url}/oauth/${provider}/callback`);
  const done = await browser.call('GET', back.toString(), undefined, { authorization: '' });
  expect(done.status, done.text).toBe(302);
  const location = new URL(done.headers.get('location') ?? '');
  expect(`${location.origin}${location.pathname}`).toBe(`${returnOrigin}/done`);
  return location.searchParams.get('connectionId') ?? '';
}

describe('AWS mode: OAuth', () => {
  const api = () => httpClient(world.url, platformKey).call;
  let snareConnection = '';

  it('OAuth connect, code host: the oauth function exchanges the code, stores the token in Secrets Manager and the connection in the table', async () => {
    const from = world.calls.length;
    const tokenCalls = oauth.tokenCalls.length;
    const id = await connect('github', { label: 'work' });
    expect(id).toMatch(/^conn_/);
    expect(oauth.tokenCalls.length).toBe(tokenCalls + 1);
    expect(oauth.tokenCalls.at(-1)?.params).toMatchObject({
      client_id: oauth.clientId,
      redirect_uri: `${world.url}/oauth/github/callback`,
    });
    const got = await api()('GET', `/connections/${id}`);
    expect(got.status, got.text).toBe(200);
    expect(got.body).toMatchObject({ provider: 'github', authMethod: 'oauth', status: 'connected', accountLogin: 'octocat' });
    expect(world.actionsSince(from, 'oauth')).toEqual(
      expect.arrayContaining([
        'oauth secretsmanager:GetSecretValue',
        'oauth secretsmanager:CreateSecret',
        'oauth dynamodb:PutItem',
        'oauth dynamodb:DeleteItem',
      ]),
    );
  });

  it('OAuth connect, collection service: the code exchange stores a refreshable token and names the account from GET /me', async () => {
    oauth.behaviour.extraTokenFields = { scope: snareScopes };
    const from = world.calls.length;
    snareConnection = await connect('contentsnare', { label: 'Agency A', scopes: ['administration'] });
    expect(snareConnection).toMatch(/^conn_/);
    expect(oauth.tokenCalls.at(-1)?.params).toMatchObject({
      grant_type: 'authorization_code',
      redirect_uri: `${world.url}/oauth/contentsnare/callback`,
    });
    const got = await api()('GET', `/connections/${snareConnection}`);
    expect(got.status, got.text).toBe(200);
    expect(got.body).toMatchObject({ provider: 'contentsnare', authMethod: 'oauth', status: 'connected' });
    expect(JSON.stringify(got.body)).not.toContain('fake-rt-');
    expect(world.actionsSince(from, 'oauth')).toEqual(
      expect.arrayContaining(['oauth secretsmanager:CreateSecret', 'oauth dynamodb:PutItem']),
    );
  });

  it('token refresh: a collection-service token past its expiry is refreshed by the tool step before it calls the service', async () => {
    // A connection whose token expires within the refresh margin: its first use refreshes it.
    oauth.behaviour.expiresIn = 60;
    const id = await connect('contentsnare', { label: 'Agency B', scopes: ['administration'] });
    oauth.behaviour.expiresIn = 7200;
    const refreshes = oauth.refreshCalls().length;
    const from = world.calls.length;
    const logFrom = snare.log.length;
    const step = await api()('POST', '/tools/contentsnare.api_call/invoke', {
      connectionId: id,
      input: { method: 'GET', endpoint: 'requests', query: { limit: 10 } },
    });
    expect(step.status, step.text).toBe(200);
    expect(step.body).toMatchObject({ ok: true });
    expect(oauth.refreshCalls().length).toBe(refreshes + 1);
    expect(oauth.refreshCalls().at(-1)?.params).toMatchObject({ grant_type: 'refresh_token', client_id: oauth.clientId });
    // The service was called with the new token, which the fake issued on the refresh.
    const used = snare.log.slice(logFrom).map((e) => e.token);
    expect(used.length).toBeGreaterThan(0);
    for (const token of used) expect(oauth.validAccessTokens.has(token ?? '')).toBe(true);
    const after = await api()('GET', `/connections/${id}`);
    expect(after.body).toMatchObject({ status: 'connected' });
    expect(world.actionsSince(from, 'tool-step')).toEqual(
      expect.arrayContaining(['tool-step secretsmanager:GetSecretValue', 'tool-step secretsmanager:PutSecretValue']),
    );
  });
});
