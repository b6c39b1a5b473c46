import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ConnectionRepo } from '../../shared/store/connection-repo';
import { stateHash } from '../../shared/oauth/pkce';
import { keys } from '../../shared/store/table-design';
import { appOrigin, oauthTestContext, publicUrl, type OAuthTestContext } from '../helpers/oauth-test-context';
import { browseToCallback } from '../helpers/oauth-connect';

let t: OAuthTestContext;
beforeAll(async () => {
  t = await oauthTestContext();
});
afterAll(async () => {
  await t.stop();
});
beforeEach(() => {
  t.fake.behaviour.deny = false;
  t.fake.behaviour.codeErrorWith200 = false;
});

function start(provider: 'github' | 'contentsnare', body?: Record<string, unknown>): Promise<URL> {
  return browseToCallback(t, provider, body);
}

const connectionCount = async () => (await new ConnectionRepo(t.ctx.store).list()).length;
const tokenSecrets = () => [...t.secrets.values.keys()].filter((k) => k.startsWith('connections/'));

describe('OAuth state abuse (RELIABILITY 20)', () => {
  it('a missing state is 400 and the token endpoint is never called', async () => {
    const back = await start('github');
    back.searchParams.delete('state');
    const calls = t.fake.tokenCalls.length;
    const res = await t.callback(back);
    expect(res.status).toBe(400);
    expect(t.fake.tokenCalls.length).toBe(calls);
  });

  it('an unknown state is 400 and the token endpoint is never called', async () => {
    const back = await start('github');
    back.searchParams.set('state', 'A'.repeat(43));
    const calls = t.fake.tokenCalls.length;
    const res = await t.callback(back, { accept: 'application/json' });
    expect(res.status).toBe(400);
    expect(JSON.parse(String(res.body)).error.code).toBe('invalid_input');
    expect(t.fake.tokenCalls.length).toBe(calls);
  });

  it('a state older than 10 minutes is 400 and the token endpoint is never called', async () => {
    const back = await start('contentsnare');
    t.clock.advance(10 * 60 * 1000 + 1);
    const calls = t.fake.tokenCalls.length;
    const res = await t.callback(back);
    expect(res.status).toBe(400);
    expect(t.fake.tokenCalls.length).toBe(calls);
  });

  it('a state just inside 10 minutes still works', async () => {
    const back = await start('contentsnare');
    t.clock.advance(10 * 60 * 1000 - 1000);
    expect((await t.callback(back)).status).toBe(302);
  });

  it('a reused state is 400 the second time, without a second token call', async () => {
    const back = await start('github');
    expect((await t.callback(back)).status).toBe(302);
    const calls = t.fake.tokenCalls.length;
    const again = await t.callback(back);
    expect(again.status).toBe(400);
    expect(t.fake.tokenCalls.length).toBe(calls);
  });

  it('two callbacks with one state at once: exactly one succeeds', async () => {
    const back = await start('contentsnare');
    const before = await connectionCount();
    const calls = t.fake.tokenCalls.length;
    const answers = await Promise.all([t.callback(back), t.callback(back), t.callback(back)]);
    expect(answers.map((a) => a.status).sort()).toEqual([302, 400, 400]);
    expect(t.fake.tokenCalls.length).toBe(calls + 1);
    expect(await connectionCount()).toBe(before + 1);
  });

  it("a state issued for one provider is refused on the other provider's callback", async () => {
    const back = await start('github');
    const calls = t.fake.tokenCalls.length;
    const res = await t.callback(`/oauth/contentsnare/callback${back.search}`);
    expect(res.status).toBe(400);
    expect(t.fake.tokenCalls.length).toBe(calls);
  });

  it('a repeated state parameter is refused', async () => {
    const back = await start('github');
    back.searchParams.append('state', 'other');
    expect((await t.callback(back)).status).toBe(400);
  });
});

describe('returnTo (RELIABILITY 21)', () => {
  it.each([
    'https://evil.example/steal',
    'https://app.example.test.evil.example/x',
    'https://user:pw@app.example.test/x',
    '//evil.example/x',
    '/relative/path',
    'javascript:alert(1)',
    'http://app.example.test/x',
  ])('refuses %s with 400 and creates no state', async (returnTo) => {
    const res = await t.authorize('github', { returnTo });
    expect(res.status).toBe(400);
    expect(JSON.parse(String(res.body)).error.code).toBe('invalid_input');
    expect(String(res.body)).not.toContain('authorizeUrl');
  });

  it("accepts an allowed origin, the public URL's own included", async () => {
    expect((await t.authorize('github', { returnTo: `${appOrigin}/a/b?c=d` })).status).toBe(200);
    expect((await t.authorize('github', { returnTo: `${publicUrl}/ui` })).status).toBe(200);
  });
});

describe('failures after the state (RELIABILITY 22-23)', () => {
  it('access_denied at the provider goes back to returnTo with error=access_denied and stores nothing; the state is spent', async () => {
    t.fake.behaviour.deny = true;
    const back = await start('contentsnare');
    const before = { conns: await connectionCount(), secrets: tokenSecrets().length, calls: t.fake.tokenCalls.length };
    const res = await t.callback(back);
    expect(res.status).toBe(302);
    const location = new URL(res.headers?.location ?? '');
    expect(location.origin).toBe(appOrigin);
    expect(location.searchParams.get('error')).toBe('access_denied');
    expect(location.searchParams.get('connectionId')).toBeNull();
    expect(await connectionCount()).toBe(before.conns);
    expect(tokenSecrets().length).toBe(before.secrets);
    expect(t.fake.tokenCalls.length).toBe(before.calls);
    expect((await t.callback(back)).status).toBe(400);
  });

  it('HTTP 200 with an error body from the token endpoint is a failure: redirect with error, nothing stored', async () => {
    t.fake.behaviour.codeErrorWith200 = true;
    const back = await start('github');
    const before = { conns: await connectionCount(), secrets: tokenSecrets().length };
    const res = await t.callback(back);
    expect(res.status).toBe(302);
    expect(new URL(res.headers?.location ?? '').searchParams.get('error')).toBe('token_exchange_failed');
    expect(await connectionCount()).toBe(before.conns);
    expect(tokenSecrets().length).toBe(before.secrets);
  });

  it('a wrong PKCE verifier is refused by the token endpoint and nothing is stored', async () => {
    const back = await start('contentsnare');
    // The fake checks S256(verifier) against the challenge from the authorize URL; a code
    // from another authorization carries another challenge.
    const other = await start('contentsnare');
    back.searchParams.set('code', other.searchParams.get('code') ?? '');
    const before = await connectionCount();
    const res = await t.callback(back);
    expect(new URL(res.headers?.location ?? '').searchParams.get('error')).toBe('token_exchange_failed');
    expect(await connectionCount()).toBe(before);
  });

  it('the verifier never appears in the authorize URL, only its S256 challenge', async () => {
    const res = await t.authorize('github', {});
    const url = (JSON.parse(String(res.body)) as { authorizeUrl: string }).authorizeUrl;
    const back = await t.fake.browse(url);
    const calls = t.fake.tokenCalls.length;
    await t.callback(back);
    const verifier = t.fake.tokenCalls[calls]?.params.code_verifier ?? '';
    expect(verifier.length).toBe(43);
    expect(url).not.toContain(verifier);
    expect(back.toString()).not.toContain(verifier);
  });

  it('the stored state holds the verifier sealed, never in clear, and is gone after the callback', async () => {
    const res = await t.authorize('github', {});
    const url = (JSON.parse(String(res.body)) as { authorizeUrl: string }).authorizeUrl;
    const key = keys.oauthState(stateHash(new URL(url).searchParams.get('state') ?? ''));
    const back = await t.fake.browse(url);
    const atRest = JSON.stringify(await t.ctx.store.get(key));
    expect(atRest).toContain('sealedVerifier');
    const calls = t.fake.tokenCalls.length;
    await t.callback(back);
    const verifier = t.fake.tokenCalls[calls]?.params.code_verifier ?? '';
    expect(verifier).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(atRest).not.toContain(verifier);
    expect(await t.ctx.store.get(key)).toBeUndefined();
  });

  it('the failed-callback page without returnTo names the error', async () => {
    t.fake.behaviour.deny = true;
    const back = await start('github', {});
    const res = await t.callback(back);
    expect(res.status).toBe(400);
    expect(String(res.body)).toContain('access_denied');
  });
});

describe('the callback is bound to the browser that started the flow', () => {
  const authorizeUrlOf = async (provider: 'github' | 'contentsnare') => {
    const res = await t.authorize(provider, { returnTo: `${appOrigin}/back` });
    return (JSON.parse(String(res.body)) as { authorizeUrl: string }).authorizeUrl;
  };

  it('authorizeUrl opens our start step, which sets an HttpOnly SameSite=Lax cookie for this flow and sends the browser to the provider', async () => {
    const url = await authorizeUrlOf('github');
    expect(url.startsWith(`${publicUrl}/oauth/github/start?state=`)).toBe(true);
    const res = await t.start(url);
    expect(res.status).toBe(302);
    expect(res.headers?.['cache-control']).toBe('no-store');
    const provider = new URL(res.headers?.location ?? '');
    expect(`${provider.origin}${provider.pathname}`).toBe(`${t.fake.url}/login/oauth/authorize`);
    expect(provider.searchParams.get('state')).toBe(new URL(url).searchParams.get('state'));
    const cookie = res.headers?.['set-cookie'] ?? '';
    expect(cookie).toMatch(/^oauth_bind_[a-f0-9]{16}=[A-Za-z0-9_-]{43}; /);
    expect(cookie).toContain('; HttpOnly');
    expect(cookie).toContain('; SameSite=Lax');
    expect(cookie).toContain('; Path=/oauth/github');
    expect(cookie).toContain('; Max-Age=600');
    // PUBLIC_URL is http here (loopback): Secure would keep the cookie from ever coming back.
    expect(cookie).not.toContain('Secure');
    // The binding value is in the cookie only, never in a URL.
    expect(provider.toString()).not.toContain(cookie.split(';')[0]?.split('=')[1]);
  });

  it('a callback from another browser (no binding cookie) is 400, calls no token endpoint, and leaves the flow to its own browser', async () => {
    const back = await start('github');
    const calls = t.fake.tokenCalls.length;
    const foreign = await t.callback(back, { cookies: false, accept: 'application/json' });
    expect(foreign.status).toBe(400);
    expect(JSON.parse(String(foreign.body)).error.code).toBe('invalid_input');
    expect(t.fake.tokenCalls.length).toBe(calls);
    const own = await t.callback(back);
    expect(own.status).toBe(302);
    expect(new URL(own.headers?.location ?? '').searchParams.get('connectionId')).toMatch(/^conn_/);
  });

  it('a cookie of another flow, or a forged value, does not bind', async () => {
    const back = await start('github');
    const name = [...t.cookies.keys()].at(-1) ?? '';
    const calls = t.fake.tokenCalls.length;
    expect((await t.callback(back, { cookies: `${name}=${'A'.repeat(43)}` })).status).toBe(400);
    const otherName = [...t.cookies.keys()].find((k) => k !== name) ?? 'oauth_bind_0000000000000000';
    expect((await t.callback(back, { cookies: `${otherName}=${t.cookies.get(otherName) ?? ''}` })).status).toBe(400);
    expect(t.fake.tokenCalls.length).toBe(calls);
  });

  it('the start link works once: a leaked authorizeUrl opened again is refused', async () => {
    const url = await authorizeUrlOf('contentsnare');
    expect((await t.start(url)).status).toBe(302);
    const again = await t.start(url);
    expect(again.status).toBe(400);
    expect(again.headers?.['set-cookie']).toBeUndefined();
  });

  it('a start with an unknown or expired state is 400 and sets no cookie', async () => {
    const unknown = await t.start(`${publicUrl}/oauth/github/start?state=${'B'.repeat(43)}`);
    expect(unknown.status).toBe(400);
    expect(unknown.headers?.['set-cookie']).toBeUndefined();
    const url = await authorizeUrlOf('github');
    t.clock.advance(10 * 60 * 1000 + 1);
    expect((await t.start(url)).status).toBe(400);
  });

  it('the callback clears the binding cookie', async () => {
    const back = await start('contentsnare');
    const res = await t.callback(back);
    expect(res.status).toBe(302);
    expect(res.headers?.['set-cookie']).toMatch(/^oauth_bind_[a-f0-9]{16}=; .*Max-Age=0/);
  });
});

describe('not configured', () => {
  it('answers 501 not_configured naming the variables, for each provider', async () => {
    const bare = await oauthTestContext({ GITHUB_CLIENT_ID: '', GITHUB_CLIENT_SECRET: '', CONTENTSNARE_CLIENT_SECRET: '' });
    try {
      const gh = await bare.authorize('github', {});
      expect(gh.status).toBe(501);
      const ghError = JSON.parse(String(gh.body)).error;
      expect(ghError.code).toBe('not_configured');
      expect(ghError.message).toContain('GITHUB_CLIENT_ID');
      expect(ghError.message).toContain('GITHUB_CLIENT_SECRET');
      const cs = await bare.authorize('contentsnare', {});
      expect(cs.status).toBe(501);
      expect(JSON.parse(String(cs.body)).error.message).toContain('CONTENTSNARE_CLIENT_SECRET');
      expect(JSON.parse(String(cs.body)).error.message).not.toContain('CONTENTSNARE_CLIENT_ID');
    } finally {
      await bare.stop();
    }
  });
});

describe('RELIABILITY 25', () => {
  it('no token, client secret, code or verifier in any log line or answer of these tests', () => {
    expect(t.fake.sensitive().some((s) => s.startsWith('fake-code-'))).toBe(true);
    expect(t.leaks()).toEqual([]);
  });
});
