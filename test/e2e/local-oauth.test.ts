import { mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeContentSnare, type FakeContentSnare } from '../helpers/fake-contentsnare';
import { startFakeOAuthServer, type FakeOAuthServer } from '../helpers/fake-oauth-server';
import { freePort, startLocalProcess, type RunningLocal } from '../helpers/local-process';
import { httpApiCaller } from '../helpers/platform-api-caller';

const appOrigin = 'https://app.example.test';
const key = 'k'.repeat(40);

// From npm start, a browser round trip with each provider makes a
// working connection, a replayed state fails safely, and the collection service's steps run
// on the connection the OAuth flow made.
describe('npm start: OAuth round trips and Content Snare steps on the resulting connection', () => {
  let oauth: FakeOAuthServer;
  let snare: FakeContentSnare;
  let running: RunningLocal;
  const dataDir = mkdtempSync(join(tmpdir(), 'local-oauth-'));

  beforeAll(async () => {
    oauth = await startFakeOAuthServer();
    snare = await startFakeContentSnare();
    const port = await freePort();
    running = await startLocalProcess({
      DATA_DIR: dataDir,
      PORT: String(port),
      PUBLIC_URL: `http://127.0.0.1:${port}`,
      PLATFORM_API_KEY: key,
      DISPATCH_SIGNING_SECRET: 's'.repeat(40),
      ALLOWED_RETURN_ORIGINS: appOrigin,
      GITHUB_OAUTH_URL: oauth.url,
      GITHUB_API_URL: oauth.url,
      GITHUB_CLIENT_ID: oauth.clientId,
      GITHUB_CLIENT_SECRET: oauth.clientSecret,
      CONTENTSNARE_OAUTH_URL: oauth.url,
      CONTENTSNARE_API_URL: snare.url,
      CONTENTSNARE_CLIENT_ID: oauth.clientId,
      CONTENTSNARE_CLIENT_SECRET: oauth.clientSecret,
      POLL_INTERVAL_SECONDS: '3600',
    });
  }, 60_000);
  afterAll(async () => {
    await running?.stop();
    await oauth?.close();
    await snare?.close();
  });

  // The runtime starts in beforeAll: its URL is read at each call.
  const api = httpApiCaller(() => running.url, key);

  /** Authorize, let the fake "browser" consent, then follow the redirect back to the runtime's callback. */
  const roundTrip = async (provider: 'github' | 'contentsnare') => {
    const started = await api('POST', `/oauth/${provider}/authorize`, { returnTo: `${appOrigin}/done` });
    expect(started.status).toBe(200);
    // As a browser: authorizeUrl is the runtime's start step, which sets the binding cookie
    // and redirects to the provider; the cookie goes back with the callback.
    const start = await fetch(started.body.authorizeUrl as string, { redirect: 'manual' });
    expect(start.status).toBe(302);
    const cookie = (start.headers.get('set-cookie') ?? '').split(';')[0] ?? '';
    expect(cookie).toMatch(/^oauth_bind_/);
    const callback = await oauth.browse(start.headers.get('location') ?? '');
    expect(callback.pathname).toBe(`/oauth/${provider}/callback`);
    const back = await fetch(callback, { redirect: 'manual', headers: { cookie } });
    return { callback, back, location: new URL(back.headers.get('location') ?? 'about:blank') };
  };

  it.each(['github', 'contentsnare'] as const)(
    '%s: the browser round trip creates a connected account, and a replayed state stores nothing',
    async (provider) => {
      const { callback, back, location } = await roundTrip(provider);
      expect(back.status).toBe(302);
      expect(`${location.origin}${location.pathname}`).toBe(`${appOrigin}/done`);
      const connectionId = location.searchParams.get('connectionId') ?? '';
      expect((await api('GET', `/connections/${connectionId}`)).body).toMatchObject({
        id: connectionId,
        provider,
        authMethod: 'oauth',
        status: 'connected',
      });

      // The state was used: no trusted returnTo is left to redirect to, so a plain 400, and no token call.
      const before = (await api('GET', '/connections')).body.connections.length as number;
      const tokenCalls = oauth.tokenCalls.length;
      const replay = await fetch(callback, { redirect: 'manual' });
      expect(replay.status).toBe(400);
      expect(replay.headers.get('location')).toBeNull();
      expect(oauth.tokenCalls.length).toBe(tokenCalls);
      expect((await api('GET', '/connections')).body.connections).toHaveLength(before);
    },
  );

  it('no PKCE verifier is left at rest in the data directory after the callback', async () => {
    const calls = oauth.tokenCalls.length;
    const { back } = await roundTrip('github');
    expect(back.status).toBe(302);
    const verifier = oauth.tokenCalls[calls]?.params.code_verifier ?? '';
    expect(verifier).toMatch(/^[A-Za-z0-9_-]{43}$/);
    const files = readdirSync(dataDir, { recursive: true, withFileTypes: true }).filter((f) => f.isFile());
    expect(files.length).toBeGreaterThan(0);
    const holding = files.filter((f) => readFileSync(join(f.parentPath, f.name)).includes(verifier)).map((f) => f.name);
    expect(holding).toEqual([]);
  });

  it('runs create_client, create_request and api_call on the OAuth-made connection, named by GET /me', async () => {
    const before = snare.log.length;
    const calls = () => snare.log.slice(before).map((e) => `${e.method} ${e.path}`);
    const { location } = await roundTrip('contentsnare');
    const connectionId = location.searchParams.get('connectionId') ?? '';
    // The account was named at connect time from the partner API's GET /me (documented with full_name only).
    expect(calls()).toEqual(['GET /partner_api/v1/me']);
    const named = (await api('GET', `/connections/${connectionId}`)).body;
    expect(named).toMatchObject({ accountLogin: 'Simulated Snare Admin' });
    expect(named.accountId).toBeUndefined();
    const invoke = (toolId: string, input: unknown) => api('POST', `/tools/${toolId}/invoke`, { connectionId, input });
    // The catalog describes the inputs the steps take (the friendly names and the pair rules).
    const tools = (await api('GET', '/tools')).body.tools as Array<{
      id: string;
      inputSchema: { properties: Record<string, unknown>; required: string[]; allOf?: unknown[] };
    }>;
    const requestSchema = tools.find((s) => s.id === 'contentsnare.create_request')?.inputSchema;
    expect(Object.keys(requestSchema?.properties ?? {})).toEqual(
      expect.arrayContaining(['client_id', 'client_email', 'client_name', 'template_id', 'template_name', 'due_date', 'send']),
    );
    expect(requestSchema?.allOf).toContainEqual({ oneOf: [{ required: ['client_id'] }, { required: ['client_email'] }] });
    expect(tools.find((s) => s.id === 'contentsnare.create_client')?.inputSchema.required).toEqual(['name', 'email']);

    const client = await invoke('contentsnare.create_client', {
      name: 'Ada Lovelace',
      email: 'ada@example.com',
      company_name: 'Engines Ltd',
    });
    expect(client.status, JSON.stringify(client.body)).toBe(200);
    const clientId = (client.body.data as { id: string }).id;
    const request = await invoke('contentsnare.create_request', {
      client_id: clientId,
      template_id: 'tpl_1',
      name: 'Onboarding',
      due_date: '2026-12-31',
    });
    expect(request.status, JSON.stringify(request.body)).toBe(200);
    expect(request.body.data).toMatchObject({
      sent: true,
      status: 'published',
      due: '2026-12-31T00:00:00.000Z',
      share_link: expect.any(String),
    });
    const draft = await invoke('contentsnare.create_request', {
      client_email: 'grace@example.com',
      client_name: 'Grace Hopper',
      template_name: 'Onboarding',
      name: 'Later',
      send: false,
    });
    expect(draft.body).toMatchObject({ ok: true, data: { sent: false, status: 'draft' } });
    const listed = await invoke('contentsnare.api_call', { method: 'GET', endpoint: 'requests' });
    expect(listed.status, JSON.stringify(listed.body)).toBe(200);
    expect(listed.body.data.data.results).toHaveLength(2);

    const badDate = await invoke('contentsnare.create_request', {
      client_id: clientId,
      template_id: 'tpl_1',
      name: 'x',
      due_date: '2026-02-30',
    });
    expect(badDate.body).toMatchObject({ ok: false, error: { code: 'invalid_input' } });
    // Every call reached the fake with the OAuth access token, none was refused or throttled,
    // and none carried a field the partner API reference does not name.
    expect(snare.count(401) + snare.count(429)).toBe(0);
    expect(calls()).toEqual([
      'GET /partner_api/v1/me',
      'POST /partner_api/v1/clients',
      `GET /partner_api/v1/clients/${clientId}`,
      'POST /partner_api/v1/requests',
      'POST /partner_api/v1/requests',
      'GET /partner_api/v1/requests',
    ]);
    expect(snare.problems).toEqual([]);
  });
});
