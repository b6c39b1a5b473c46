import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { routes as platformRoutes } from '../../functions/platform-api/routes';
import { loadProviderExamples } from '../../shared/wiring/provider-examples';
import { routes as oauthRoutes } from '../../functions/oauth/routes';
import { createScopedKey, resolveScopedKey } from '../../shared/keys/scoped-keys';
import { createRouter } from '../../shared/http/router';
import type { HttpResponse } from '../../shared/http/types';
import { ConnectionRepo } from '../../shared/store/connection-repo';
import { appOrigin, oauthTestContext, publicUrl, type OAuthTestContext } from '../helpers/oauth-test-context';
import { testPlatformKey } from '../helpers/test-context';

let t: OAuthTestContext;
let handle: ReturnType<typeof createRouter>;
beforeAll(async () => {
  t = await oauthTestContext();
  handle = createRouter([...oauthRoutes(t.ctx), ...platformRoutes(t.ctx, { examples: loadProviderExamples })], {
    platformApiKey: t.ctx.platformApiKey,
  });
});
afterAll(async () => {
  await t.stop();
});

const bearer = { authorization: `Bearer ${testPlatformKey}`, 'content-type': 'application/json' };

function call(method: string, target: string, headers: Record<string, string> = {}, body = ''): Promise<HttpResponse> {
  const u = new URL(target, publicUrl);
  return handle({ method, path: u.pathname, headers, query: u.searchParams, body: Buffer.from(body) });
}

const json = (res: HttpResponse) => JSON.parse(String(res.body)) as Record<string, unknown>;

async function newSession(body: Record<string, unknown>): Promise<{ token: string; url: string; expiresAt: string }> {
  const res = await call('POST', '/connect/sessions', bearer, JSON.stringify(body));
  expect(res.status, String(res.body)).toBe(201);
  return json(res) as { token: string; url: string; expiresAt: string };
}

/** The page's hidden CSRF value, as the browser would post it back. */
async function csrfOf(url: string): Promise<string> {
  const page = await call('GET', url, { accept: 'text/html' });
  expect(page.status).toBe(200);
  return /name="csrf" value="([^"]+)"/.exec(String(page.body))?.[1] ?? '';
}

async function choose(url: string, fields: Record<string, string>, headers: Record<string, string> = { origin: publicUrl }) {
  const csrf = fields.csrf ?? (await csrfOf(url));
  const form = new URLSearchParams({ ...fields, csrf }).toString();
  return call('POST', url, { 'content-type': 'application/x-www-form-urlencoded', ...headers }, form);
}

/** The end user chooses the code host's OAuth on the page, and approves at the (fake) code host: the callback's answer. */
async function connectByOAuth(url: string): Promise<HttpResponse> {
  const chosen = await choose(url, { choice: 'github' });
  expect(chosen.status, String(chosen.body)).toBe(303);
  return t.callback(await t.fake.browse(chosen.headers?.location ?? ''));
}

const connections = () => new ConnectionRepo(t.ctx.store);

describe('the connect page', () => {
  it('answers a page URL valid 30 minutes, and the page carries no platform key', async () => {
    const session = await newSession({ endUserId: 'user-1' });
    expect(session.url).toBe(`${publicUrl}/connect/${session.token}`);
    expect(Date.parse(session.expiresAt) - t.clock.now()).toBe(30 * 60 * 1000);
    const page = await call('GET', session.url, { accept: 'text/html' });
    expect(page.headers?.['content-security-policy']).toContain("default-src 'none'");
    expect(page.headers?.['cache-control']).toBe('no-store');
    expect(String(page.body)).toContain('<label for="token-token">');
    expect(String(page.body)).not.toContain(testPlatformKey);
  });

  it('makes the OAuth connection for the end user, then refuses the same link a second time', async () => {
    const session = await newSession({ endUserId: 'user-2', providers: ['github'] });
    const answer = await connectByOAuth(session.url);
    expect(answer.status).toBe(200);
    expect(String(answer.body)).toContain('Connected to GitHub');
    const made = (await connections().list()).filter((c) => c.endUserId === 'user-2');
    expect(made).toHaveLength(1);
    expect(made[0]).toMatchObject({ provider: 'github', authMethod: 'oauth', status: 'connected' });

    const again = await call('GET', session.url, { accept: 'text/html' });
    expect(again.status).toBe(409);
    expect(String(again.body)).toContain('already used');
    expect((await choose(session.url, { choice: 'github', csrf: 'x' })).status).toBe(409);
  });

  it('a second flow started from the same page makes no second connection', async () => {
    const session = await newSession({ endUserId: 'user-3', providers: ['github'] });
    const first = await choose(session.url, { choice: 'github' });
    const second = await choose(session.url, { choice: 'github' });
    const backFirst = await t.fake.browse(first.headers?.location ?? '');
    const backSecond = await t.fake.browse(second.headers?.location ?? '');
    expect((await t.callback(backFirst)).status).toBe(200);
    const refused = await t.callback(backSecond);
    expect(refused.status).toBe(409);
    expect(String(refused.body)).toContain('connect_page_used');
    expect((await connections().list()).filter((c) => c.endUserId === 'user-3')).toHaveLength(1);
  });

  it('goes back to returnTo with the connectionId', async () => {
    const session = await newSession({ endUserId: 'user-4', returnTo: `${appOrigin}/connected?tab=1` });
    const answer = await connectByOAuth(session.url);
    expect(answer.status).toBe(302);
    const back = new URL(answer.headers?.location ?? '');
    expect(`${back.origin}${back.pathname}`).toBe(`${appOrigin}/connected`);
    const made = await connections().get(back.searchParams.get('connectionId') ?? '');
    expect(made?.endUserId).toBe('user-4');
  });

  it('refuses a returnTo on an origin not allowed, naming the field', async () => {
    const res = await call('POST', '/connect/sessions', bearer, JSON.stringify({ endUserId: 'u', returnTo: 'https://evil.example/x' }));
    expect(res.status).toBe(400);
    expect(String(res.body)).toContain('returnTo');
  });

  it('refuses a session without the platform key, and a malformed endUserId naming the field', async () => {
    expect((await call('POST', '/connect/sessions', { 'content-type': 'application/json' }, '{"endUserId":"u"}')).status).toBe(401);
    const bad = await call('POST', '/connect/sessions', bearer, JSON.stringify({ endUserId: 'a/b' }));
    expect(bad.status).toBe(400);
    expect(String(bad.body)).toContain('endUserId');
  });

  it('expires after 30 minutes on the injected clock, and an unknown link is not found', async () => {
    const session = await newSession({ endUserId: 'user-5' });
    t.clock.advance(30 * 60 * 1000 - 1);
    expect((await call('GET', session.url)).status).toBe(200);
    t.clock.advance(1);
    const expired = await call('GET', session.url);
    expect(expired.status).toBe(410);
    expect(String(expired.body)).toContain('expired');
    expect((await call('GET', '/connect/not-a-session-token')).status).toBe(404);
  });

  it("refuses a post without the page's CSRF value, or from another origin", async () => {
    const session = await newSession({ endUserId: 'user-6' });
    expect((await choose(session.url, { choice: 'github', csrf: 'forged' })).status).toBe(403);
    expect((await choose(session.url, { choice: 'github' }, { origin: 'https://evil.example' })).status).toBe(403);
    expect((await choose(session.url, { choice: 'github_app' })).status).toBe(501);
  });

  it('connects a fine-grained token for the end user; a refused token leaves the page usable', async () => {
    const session = await newSession({ endUserId: 'user-7', providers: ['github'], returnTo: `${appOrigin}/done` });
    const refused = await choose(session.url, { choice: 'token', token: 'github_pat_wrong' });
    expect(refused.status).toBe(400);
    expect(String(refused.body)).toContain('refused by the code host');
    t.fake.validAccessTokens.add('github_pat_good');
    const made = await choose(session.url, { choice: 'token', token: 'github_pat_good' });
    expect(made.status).toBe(303);
    const id = new URL(made.headers?.location ?? '').searchParams.get('connectionId') ?? '';
    expect(await connections().get(id)).toMatchObject({ authMethod: 'token', endUserId: 'user-7' });
    expect((await call('GET', session.url)).status).toBe(409);
  });
});

describe('connections and keys by end user', () => {
  it("GET /connections?endUserId= lists only that end user's connections", async () => {
    const res = await call('GET', '/connections?endUserId=user-2', bearer);
    const listed = json(res).connections as { endUserId: string }[];
    expect(listed.length).toBe(1);
    expect(listed.every((c) => c.endUserId === 'user-2')).toBe(true);
    expect((await call('GET', '/connections?endUserId=a/b', bearer)).status).toBe(400);
  });

  it("an end user's key opens their connections, present and future, and no one else's", async () => {
    const key = await createScopedKey(t.ctx, { label: 'end user 8', endUserId: 'user-8' });
    expect(key.connections).toEqual([]);
    const before = await resolveScopedKey(t.ctx, key.key);
    expect(before?.kind === 'scoped' && before.connections).toEqual([]);
    const session = await newSession({ endUserId: 'user-8', providers: ['github'] });
    expect((await connectByOAuth(session.url)).status).toBe(200);
    const made = (await connections().list()).find((c) => c.endUserId === 'user-8');
    const after = await resolveScopedKey(t.ctx, key.key);
    expect(after?.kind === 'scoped' && after.connections).toEqual([made?.id]);
    const other = (await connections().list()).find((c) => c.endUserId === 'user-2');
    expect(after?.kind === 'scoped' && after.connections).not.toContain(other?.id);
  });

  it('POST /keys takes endUserId, and refuses a key that names neither connections nor an end user', async () => {
    const made = await call('POST', '/keys', bearer, JSON.stringify({ label: 'eu', endUserId: 'user-2' }));
    expect(made.status).toBe(201);
    expect(json(made)).toMatchObject({ endUserId: 'user-2', connections: [] });
    const neither = await call('POST', '/keys', bearer, JSON.stringify({ label: 'none' }));
    expect(neither.status).toBe(400);
    expect(String(neither.body)).toContain('connections');
  });
});
