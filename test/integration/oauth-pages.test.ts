import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { appOrigin, oauthTestContext, publicUrl, type OAuthTestContext } from '../helpers/oauth-test-context';

/** Issue item 4: a person's browser gets pages (service, account, what to do, the way back); API clients keep JSON. */
let t: OAuthTestContext;
beforeAll(async () => {
  t = await oauthTestContext();
});
afterAll(async () => {
  await t.stop();
});
beforeEach(() => {
  t.fake.behaviour.deny = false;
});

const browserAccept = 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8';

async function start(provider: 'github' | 'contentsnare', body: Record<string, unknown> = {}): Promise<URL> {
  const res = await t.authorize(provider, body);
  expect(res.status).toBe(200);
  return t.fake.browse((JSON.parse(String(res.body)) as { authorizeUrl: string }).authorizeUrl);
}

function isPage(res: { headers?: Record<string, string>; body?: unknown }): string {
  expect(res.headers?.['content-type']).toContain('text/html');
  expect(res.headers?.['content-security-policy']).toContain("default-src 'none'");
  const html = String(res.body);
  expect(html).not.toContain('<script');
  return html;
}

describe('the success page (no returnTo)', () => {
  it('names the service and the connected account, for each provider', async () => {
    const gh = isPage(await t.callback(await start('github'), { accept: browserAccept }));
    expect(gh).toContain('Connected to GitHub');
    expect(gh).toContain('<strong>octocat</strong>');
    const cs = isPage(await t.callback(await start('contentsnare'), { accept: browserAccept }));
    expect(cs).toContain('Connected to Content Snare');
    expect(cs).toContain('<strong>admin@agency.example</strong>');
  });

  it('answers JSON (with the account) to a client that asks for JSON, or for anything', async () => {
    for (const accept of ['application/json', '*/*']) {
      const res = await t.callback(await start('github'), { accept });
      expect(res.status).toBe(200);
      expect(res.headers?.['content-type']).toContain('application/json');
      expect(JSON.parse(String(res.body))).toMatchObject({
        provider: 'github',
        status: 'connected',
        account: 'octocat',
        connectionId: expect.stringMatching(/^conn_/),
      });
    }
  });

  it('still redirects to returnTo with connectionId when there is one (CONTRACT)', async () => {
    const res = await t.callback(await start('github', { returnTo: `${appOrigin}/done` }), { accept: browserAccept });
    expect(res.status).toBe(302);
    expect(new URL(res.headers?.location ?? '').searchParams.get('connectionId')).toMatch(/^conn_/);
  });
});

describe('error pages', () => {
  it('a refusal at the provider without returnTo says what happened and what to do', async () => {
    t.fake.behaviour.deny = true;
    const res = await t.callback(await start('github'), { accept: browserAccept });
    expect(res.status).toBe(400);
    const html = isPage(res);
    expect(html).toContain('Connecting GitHub failed');
    expect(html).toContain('Access was denied at the provider');
    expect(html).toContain('start again and approve');
    expect(html).toContain('access_denied');
  });

  it('an expired callback link is a page for a browser, JSON for a program', async () => {
    const back = await start('contentsnare', { returnTo: `${appOrigin}/back` });
    t.clock.advance(10 * 60 * 1000 + 1);
    const page = await t.callback(back, { accept: browserAccept });
    expect(page.status).toBe(400);
    const html = isPage(page);
    expect(html).toContain('This connection link cannot be used');
    expect(html).toContain('expired or already used');
    expect(html).toContain('Start the connection again');
    // The state's returnTo cannot be trusted once the state is gone: no link to it.
    expect(html).not.toContain(appOrigin);
    const api = await t.callback(back, { accept: 'application/json' });
    expect(api.status).toBe(400);
    expect(JSON.parse(String(api.body)).error.code).toBe('invalid_input');
  });

  it('an expired or reused start link is a page for a browser, JSON for a program', async () => {
    const res = await t.authorize('github', {});
    const url = (JSON.parse(String(res.body)) as { authorizeUrl: string }).authorizeUrl;
    expect((await t.start(url, { accept: browserAccept })).status).toBe(302);
    const again = await t.start(url, { accept: browserAccept });
    expect(again.status).toBe(400);
    expect(isPage(again)).toContain('already opened');
    const unknown = await t.start(`${publicUrl}/oauth/github/start?state=${'C'.repeat(43)}`, { accept: 'application/json' });
    expect(unknown.status).toBe(400);
    expect(JSON.parse(String(unknown.body)).error.code).toBe('invalid_input');
  });
});
