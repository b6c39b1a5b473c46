import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../shared/config/config';
import { identifyAccount } from '../../shared/oauth/identify';
import { providerRegistry } from '../../shared/wiring/providers';
import { startFakeHttp, type FakeServer } from '../helpers/fake-http';
import { platformApiCaller } from '../helpers/platform-api-caller';
import { toolTestContext } from '../helpers/tool-context';

/**
 * Identities read from outside are bounded before they are stored (and then served in every
 * listing): code-host logins are at most 39 characters and ids positive integers; the
 * collection service's id, email and name have bounds too. A token secret is written only
 * once its connection can be stored: no failure leaves an orphan secret.
 */
let user: Record<string, unknown>;
let me: Record<string, unknown>;
let host: FakeServer;
beforeAll(async () => {
  host = await startFakeHttp((req) => ({ status: 200, body: req.path.endsWith('/me') ? me : user }));
});
afterAll(async () => {
  await host.close();
});

const huge = 'a'.repeat(300 * 1024);
// Past every field's bound, yet far within the answer's size limit: the field bound is what refuses it.
const long = 'a'.repeat(2000);

describe('POST /connections with what GET /user names', () => {
  it.each([
    ['a 300 KB login', { login: huge, id: 1 }, 'login'],
    ['a 40-character login', { login: 'a'.repeat(40), id: 1 }, 'login'],
    ['a login with a space', { login: 'octo cat', id: 1 }, 'login'],
    ['a negative id', { login: 'octocat', id: -5 }, 'id'],
    ['a fractional id', { login: 'octocat', id: 1.5 }, 'id'],
    ['a text id', { login: 'octocat', id: huge }, 'id'],
  ])('refuses %s as upstream_error naming the field, storing nothing', async (_what, answer, field) => {
    user = answer;
    const t = await toolTestContext({ GITHUB_API_URL: host.url });
    const call = platformApiCaller(t.ctx);
    const r = await call('POST', '/connections', { provider: 'github', token: 'ghp_identityBounds' });
    expect(r.status).toBe(502);
    expect(r.body.error).toMatchObject({ code: 'upstream_error', details: { field } });
    expect(JSON.stringify(r.body).length).toBeLessThan(2000);
    expect(t.secrets.values.size).toBe(0);
    expect((await call('GET', '/connections')).body.connections).toEqual([]);
  });

  it('accepts a 39-character login and stores it', async () => {
    user = { login: `a-${'b'.repeat(37)}`, id: 583231 };
    const t = await toolTestContext({ GITHUB_API_URL: host.url });
    const r = await platformApiCaller(t.ctx)('POST', '/connections', { provider: 'github', token: 'ghp_identityBounds' });
    expect(r).toMatchObject({ status: 201, body: { accountLogin: user.login, accountId: '583231' } });
  });

  it('deletes the token secret when the connection cannot be stored', async () => {
    user = { login: 'octocat', id: 1 };
    const t = await toolTestContext({ GITHUB_API_URL: host.url });
    const store = t.ctx.store;
    t.ctx.store = {
      ...store,
      get: store.get.bind(store),
      query: store.query.bind(store),
      delete: store.delete.bind(store),
      put: async () => Promise.reject(new Error('table unavailable')),
    };
    const r = await platformApiCaller(t.ctx)('POST', '/connections', { provider: 'github', token: 'ghp_identityBounds' });
    expect(r.status).toBe(500);
    expect(t.secrets.values.size).toBe(0);
  });
});

describe('the OAuth account look-ups', () => {
  const config = () =>
    loadConfig({ PLATFORM_API_KEY: 'platform-key-for-tests-0123456789abcdef', GITHUB_API_URL: host.url, CONTENTSNARE_API_URL: host.url });
  const answer = { token: { accessToken: 't' }, raw: {} };

  it.each([
    [{ login: huge, id: 1 }],
    [{ login: 'a'.repeat(40), id: 1 }],
    [{ login: 'octocat', id: 0 }],
    [{ login: 'octocat', id: 2 ** 60 }],
  ])('of the code host refuse %#: an unbounded login or an id that is not a positive integer', async (answerBody) => {
    user = answerBody;
    await expect(
      identifyAccount({ config: config(), fetch: globalThis.fetch, providers: providerRegistry }, 'github', answer),
    ).rejects.toMatchObject({ name: 'AccountLookupError' });
  });

  // The collection service's GET /me names the user who authorised; it does not fail a connect
  // (the token works without it): a name past its bound leaves the identity unknown, never stored.
  it.each([[{ id: long, full_name: 'Agency' }], [{ email: `${long}@example.com`, full_name: 'Agency' }], [{ full_name: long }]])(
    'of the collection service leave the identity unknown %#: an id, email or name past its bound',
    async (answerBody) => {
      me = answerBody;
      const identity = await identifyAccount(
        { config: config(), fetch: globalThis.fetch, providers: providerRegistry },
        'contentsnare',
        answer,
      );
      expect(identity).toMatchObject({ accountLogin: 'unknown', unknownBecause: expect.stringMatching(/longer than/) });
      expect(JSON.stringify(identity)).not.toContain(long);
    },
  );

  it('of the collection service accept a documented answer', async () => {
    me = { full_name: 'Agency Ltd' };
    const identity = await identifyAccount(
      { config: config(), fetch: globalThis.fetch, providers: providerRegistry },
      'contentsnare',
      answer,
    );
    expect(identity).toMatchObject({ accountLogin: 'Agency Ltd' });
    expect(identity).not.toHaveProperty('accountId');
  });
});
