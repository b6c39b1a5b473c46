import type { AppContext } from '../../shared/app/context';
import { RefreshingTokenProvider, type RefreshOptions } from '../../shared/connections/refreshing-token-provider';
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
  /** The browser arriving at our callback (a URL the fake redirected to, or one made up). */
  callback(url: URL | string): Promise<HttpResponse>;
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
    callback: async (url) => {
      const u = typeof url === 'string' ? new URL(url, publicUrl) : url;
      return record(await handle({ method: 'GET', path: u.pathname, headers: { accept: 'text/html' }, query: u.searchParams, body: Buffer.alloc(0) }));
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
