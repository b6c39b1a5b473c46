import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { EncryptedSecretStore } from '../../shared/adapters/local/encrypted-secret-store';
import type { AppContext } from '../../shared/ports/app-context';
import type { TokenSealer } from '../../shared/ports/token-sealer';
import { AppAwareTokenProvider } from '../../shared/providers/github/app/app-token-provider';
import { InstallationTokens, type InstallationTokenOptions } from '../../shared/providers/github/app/installation-tokens';
import { RefreshingTokenProvider } from '../../shared/oauth/refreshing-token-provider';
import { createRouter } from '../../shared/http/router';
import type { HttpResponse } from '../../shared/http/types';
import { routes } from '../../functions/oauth/routes';
import { startFakeGitHubApp, type FakeGitHubApp } from './fake-github-app';
import { testContext, testPlatformKey, type TestContext } from './test-context';

export const appPublicUrl = 'http://127.0.0.1:8998';
export const appReturnOrigin = 'https://app.example.test';

/** Waits that really pass (a few ms), without moving the test clock: concurrent waiters overlap as they would. */
export const shortRealSleep = (ms: number) => new Promise<void>((r) => setTimeout(r, Math.min(ms, 20)));

export interface GitHubAppTestContext extends TestContext {
  fake: FakeGitHubApp;
  /** The context as a function's wiring builds it: installation tokens beside the refreshing user tokens. */
  ctx: AppContext;
  /** What seals the installation tokens' rows (the local runtime's sealer, on a key of its own). */
  sealer: TokenSealer;
  /** Another container's token provider over the same table and secrets. */
  container(options?: InstallationTokenOptions): { tokens: AppAwareTokenProvider; installations: InstallationTokens };
  authorize(body?: unknown): Promise<HttpResponse>;
  /** The browser opening `authorizeUrl`: our start step (keeping its cookie); answers where it sends the browser. */
  start(authorizeUrl: string): Promise<HttpResponse>;
  /** The browser arriving at our callback with the start step's cookie (`cookies: false`: another browser). */
  callback(url: URL | string, options?: { cookies?: boolean }): Promise<HttpResponse>;
  /** The whole flow as `login`: authorize, start, GitHub's page, callback. */
  connectApp(as: { login: string; installationId?: number }, body?: Record<string, unknown>): Promise<HttpResponse>;
  stop(): Promise<void>;
}

/**
 * The OAuth function's routes (the App's connect flow among them) over a real table, in-memory
 * secrets and a TestClock, with GitHub played by the fake GitHub App on loopback.
 */
export async function githubAppTestContext(env: Record<string, string | undefined> = {}): Promise<GitHubAppTestContext> {
  const fake = await startFakeGitHubApp();
  const base = await testContext({
    PUBLIC_URL: appPublicUrl,
    ALLOWED_RETURN_ORIGINS: appReturnOrigin,
    ...fake.env(appPublicUrl),
    ...env,
  });
  // An hour passes for the installation tokens when the test moves its clock.
  fake.app.tokenNow = () => base.clock.now();
  // The installation tokens' rows sealed as the local runtime seals them: with its secret store's key.
  const sealerDir = mkdtempSync(join(tmpdir(), 'app-sealer-'));
  const sealer = EncryptedSecretStore.open({ dir: sealerDir }).tokenSealer();
  const deps = { ...base.ctx, sleep: shortRealSleep, sealer };
  const container = (options: InstallationTokenOptions = {}) => {
    const installations = new InstallationTokens(deps, options);
    return {
      installations,
      tokens: new AppAwareTokenProvider(new RefreshingTokenProvider(deps, { sleep: shortRealSleep }), installations),
    };
  };
  const ctx: AppContext = { ...base.ctx, tokens: container().tokens };
  const handle = createRouter(routes(ctx), { platformApiKey: ctx.platformApiKey });
  const cookies = new Map<string, string>();
  const get = (u: URL, headers: Record<string, string>) =>
    handle({ method: 'GET', path: u.pathname, headers, query: u.searchParams, body: Buffer.alloc(0) });
  const authorize = (body: unknown = {}) =>
    handle({
      method: 'POST',
      path: '/oauth/github-app/authorize',
      headers: { authorization: `Bearer ${testPlatformKey}`, 'content-type': 'application/json' },
      query: new URLSearchParams(),
      body: Buffer.from(JSON.stringify(body)),
    });
  const start = async (authorizeUrl: string) => {
    const res = await get(new URL(authorizeUrl), { accept: 'text/html' });
    const set = res.headers?.['set-cookie'];
    if (set) {
      const [pair = ''] = set.split(';');
      const at = pair.indexOf('=');
      cookies.set(pair.slice(0, at), pair.slice(at + 1));
    }
    return res;
  };
  const callback = (url: URL | string, options: { cookies?: boolean } = {}) => {
    const u = typeof url === 'string' ? new URL(url, appPublicUrl) : url;
    const jar = options.cookies === false ? '' : [...cookies].map(([k, v]) => `${k}=${v}`).join('; ');
    return get(u, { accept: 'application/json', ...(jar ? { cookie: jar } : {}) });
  };
  return {
    ...base,
    fake,
    ctx,
    container,
    authorize,
    start,
    callback,
    connectApp: async (as, body = { returnTo: `${appReturnOrigin}/done` }) => {
      const answer = await authorize(body);
      if (answer.status !== 200) throw new Error(`authorize answered ${answer.status}: ${String(answer.body)}`);
      const { authorizeUrl } = JSON.parse(String(answer.body)) as { authorizeUrl: string };
      const started = await start(authorizeUrl);
      const location = started.headers?.location;
      if (started.status !== 302 || !location) throw new Error(`start answered ${started.status}: ${String(started.body)}`);
      return callback(fake.app.browse(location, as));
    },
    sealer,
    stop: async () => {
      base.close();
      rmSync(sealerDir, { recursive: true, force: true });
      await fake.close();
    },
  };
}
