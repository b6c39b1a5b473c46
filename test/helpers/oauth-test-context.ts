import type { AppContext } from '../../shared/ports/app-context';
import { RefreshingTokenProvider, type RefreshOptions } from '../../shared/oauth/refreshing-token-provider';
import { createRouter } from '../../shared/http/router';
import type { HttpResponse } from '../../shared/http/types';
import { routes } from '../../functions/oauth/routes';
import { startFakeOAuthServer, type FakeOAuthServer } from './fake-oauth-server';
import { testContext, testPlatformKey, type TestContext } from './test-context';

export const publicUrl = 'http://127.0.0.1:8999';
export const appOrigin = 'https://app.example.test';

export interface OAuthTestContext extends TestContext {
  ctx: AppContext;
  fake: FakeOAuthServer;
  /** Every answer body and Location header the routes gave, for the leak scan. */
  answers: string[];
  authorize(provider: string, body?: unknown, auth?: string): Promise<HttpResponse>;
  /**
   * The browser opening `authorizeUrl` (our `GET /oauth/{provider}/start`): keeps the
   * binding cookie it sets in the jar and answers the start step's response (302 to the provider).
   */
  start(authorizeUrl: string, options?: { accept?: string }): Promise<HttpResponse>;
  /**
   * The browser arriving at our callback (a URL the fake redirected to, or one made up),
   * carrying the jar's cookies as a browser would (`{cookies: false}`: another browser).
   */
  callback(url: URL | string, options?: { cookies?: boolean | string; accept?: string }): Promise<HttpResponse>;
  /** The browser's cookies (name -> value) set by our start step. */
  cookies: Map<string, string>;
  /** Asserts nothing the fake marked sensitive appears in logs, answers or `extra`. */
  leaks(extra?: string[]): string[];
  refreshingProvider(options?: RefreshOptions): RefreshingTokenProvider;
  stop(): Promise<void>;
}

/**
 * The OAuth routes over a real table (embedded DynamoDB), in-memory secrets, a TestClock
 * and a capturing logger, with both providers' OAuth and API URLs pointed at one fake
 * authorization server on loopback.
 */
export async function oauthTestContext(env: Record<string, string | undefined> = {}): Promise<OAuthTestContext> {
  const fake = await startFakeOAuthServer();
  const base = await testContext({
    PUBLIC_URL: publicUrl,
    ALLOWED_RETURN_ORIGINS: `${appOrigin},${publicUrl}`,
    GITHUB_OAUTH_URL: fake.url,
    GITHUB_API_URL: fake.url,
    GITHUB_CLIENT_ID: fake.clientId,
    GITHUB_CLIENT_SECRET: fake.clientSecret,
    CONTENTSNARE_OAUTH_URL: fake.url,
    CONTENTSNARE_API_URL: fake.url,
    CONTENTSNARE_CLIENT_ID: fake.clientId,
    CONTENTSNARE_CLIENT_SECRET: fake.clientSecret,
    ...env,
  });
  const ctx: AppContext = {
    ...base.ctx,
    oauthClientSecret: async (p) => (p === 'github' ? base.ctx.config.github.clientSecret : base.ctx.config.contentsnare.clientSecret),
  };
  const refreshingProvider = (options: RefreshOptions = {}) =>
    // Backoff shortened (capped at 50 ms) so retries are quick; losers still wait seconds in all.
    new RefreshingTokenProvider(ctx, { sleep: (ms) => new Promise((r) => setTimeout(r, Math.min(ms, 50))), ...options });
  ctx.tokens = refreshingProvider();
  const handle = createRouter(routes(ctx), { platformApiKey: ctx.platformApiKey });
  const answers: string[] = [];
  const cookies = new Map<string, string>();
  const route = (u: URL, headers: Record<string, string>) =>
    handle({ method: 'GET', path: u.pathname, headers, query: u.searchParams, body: Buffer.alloc(0) });
  const start = async (authorizeUrl: string, options: { accept?: string } = {}) => {
    const res = record(await route(new URL(authorizeUrl), { accept: options.accept ?? 'text/html' }));
    const set = res.headers?.['set-cookie'];
    if (set) {
      const [pair = ''] = set.split(';');
      const at = pair.indexOf('=');
      cookies.set(pair.slice(0, at), pair.slice(at + 1));
    }
    return res;
  };
  // The fake's "browser" first goes through our start step (as a browser opening
  // authorizeUrl does), keeping its cookie, then on to the provider's consent.
  const consent = fake.browse.bind(fake);
  fake.browse = async (authorizeUrl: string) => {
    if (!authorizeUrl.startsWith(`${publicUrl}/`)) return consent(authorizeUrl);
    const res = await start(authorizeUrl);
    const location = res.headers?.location;
    if (res.status !== 302 || !location) throw new Error(`start answered ${res.status}: ${String(res.body)}`);
    return consent(location);
  };
  const record = (res: HttpResponse) => {
    answers.push(String(res.body ?? ''), JSON.stringify(res.headers ?? {}));
    return res;
  };
  return {
    ...base,
    ctx,
    fake,
    answers,
    authorize: async (provider, body = {}, auth = `Bearer ${testPlatformKey}`) =>
      record(
        await handle({
          method: 'POST',
          path: `/oauth/${provider}/authorize`,
          headers: { authorization: auth, 'content-type': 'application/json' },
          query: new URLSearchParams(),
          body: Buffer.from(JSON.stringify(body)),
        }),
      ),
    start,
    cookies,
    callback: async (url, options = {}) => {
      const u = typeof url === 'string' ? new URL(url, publicUrl) : url;
      const jar = [...cookies].map(([k, v]) => `${k}=${v}`).join('; ');
      const cookie = typeof options.cookies === 'string' ? options.cookies : options.cookies === false ? '' : jar;
      return record(await route(u, { accept: options.accept ?? 'text/html', ...(cookie ? { cookie } : {}) }));
    },
    leaks: (extra = []) => {
      const haystack = [...base.logLines, ...answers, ...extra].join('\n');
      return fake.sensitive().filter((s) => haystack.includes(s));
    },
    refreshingProvider,
    stop: async () => {
      base.close();
      await fake.close();
    },
  };
}
