import { afterEach, describe, expect, it } from 'vitest';
import type { GitHubAppConfig } from '../../shared/config/config';
import { AppError } from '../../shared/domain/errors';
import { appCall } from '../../shared/providers/github/app/app-http';
import { appJwt } from '../../shared/providers/github/app/app-jwt';
import { startFakeGitHubApp, type FakeGitHubApp } from '../helpers/fake-github-app';

/**
 * GitHub checks the App's JWT against its own clock: `iat` not in its future, `exp` at most 10
 * minutes ahead. These fakes run their clock off this machine's by a fixed amount, the way a
 * drifting laptop or container sees GitHub.
 */
const claims = (jwt: string) =>
  JSON.parse(Buffer.from(jwt.split('.')[1] ?? '', 'base64url').toString('utf8')) as { iat: number; exp: number; iss: string };

describe('the GitHub App JWT and a clock that differs from the code host', () => {
  let gh: FakeGitHubApp | undefined;
  afterEach(async () => {
    await gh?.close();
    gh = undefined;
  });

  async function codeHostOff(ms: number): Promise<{ app: GitHubAppConfig; mint: (jwt: string) => Promise<unknown> }> {
    gh = await startFakeGitHubApp({ now: () => Date.now() + ms });
    gh.app.addInstallation({ id: 31, account: { login: 'octo-org', id: 7001, type: 'Organization' } });
    const url = `${gh.url}/app/installations/31/access_tokens`;
    const deps = { fetch, clock: { now: () => Date.now() }, timeoutMs: 5000 };
    return {
      app: { appId: String(gh.app.appId), slug: gh.app.slug, clientId: gh.app.clientId },
      mint: (jwt) => appCall(deps, { method: 'POST', url, bearer: jwt, maxBytes: 65536, service: 'the installation token mint' }),
    };
  }

  it('dates iat 60 s back and exp 10 minutes after it, as GitHub recommends', async () => {
    const { app } = await codeHostOff(0);
    const before = Math.floor(Date.now() / 1000);
    const c = claims(await appJwt(app, gh?.app.privateKeyPem));
    expect(c.iss).toBe(String(gh?.app.appId));
    expect(c.iat).toBeGreaterThanOrEqual(before - 61);
    expect(c.iat).toBeLessThanOrEqual(before - 59);
    expect(c.exp - c.iat).toBe(600);
  });

  it('a clock 45 s fast is inside the margin: the first JWT is accepted', async () => {
    const { app, mint } = await codeHostOff(-45_000);
    await expect(mint(await appJwt(app, gh?.app.privateKeyPem))).resolves.toMatchObject({ token: expect.stringMatching(/^ghs_/) });
    expect(gh?.app.refusedJwts).toEqual([]);
    expect(gh?.mints(31)).toBe(1);
  });

  it('a clock 45 s slow is accepted too', async () => {
    const { app, mint } = await codeHostOff(45_000);
    await expect(mint(await appJwt(app, gh?.app.privateKeyPem))).resolves.toMatchObject({ token: expect.stringMatching(/^ghs_/) });
    expect(gh?.app.refusedJwts).toEqual([]);
  });

  it('a clock 5 minutes fast is corrected from the Date of the refusal: one retry, and the next JWT is right at once', async () => {
    const { app, mint } = await codeHostOff(-5 * 60_000);
    await expect(mint(await appJwt(app, gh?.app.privateKeyPem))).resolves.toMatchObject({ token: expect.stringMatching(/^ghs_/) });
    expect(gh?.app.refusedJwts).toEqual(['issued in the future']);
    expect(gh?.requestsTo('/app/installations/31/access_tokens')).toHaveLength(2);
    // The skew is kept: the next call's JWT is made on the code host's time.
    await expect(mint(await appJwt(app, gh?.app.privateKeyPem))).resolves.toBeDefined();
    expect(gh?.app.refusedJwts).toHaveLength(1);
    expect(gh?.mints(31)).toBe(2);
  });

  it('a clock 5 minutes slow is corrected as well', async () => {
    const { app, mint } = await codeHostOff(5 * 60_000);
    await expect(mint(await appJwt(app, gh?.app.privateKeyPem))).resolves.toMatchObject({ token: expect.stringMatching(/^ghs_/) });
    expect(gh?.mints(31)).toBe(1);
  });

  it('a JWT refused for its signature is not retried: the refusal stands', async () => {
    const { app, mint } = await codeHostOff(0);
    const jwt = await appJwt(app, gh?.app.privateKeyPem);
    const forged = `${jwt.slice(0, jwt.lastIndexOf('.'))}.${Buffer.from('forged').toString('base64url')}`;
    const e = await mint(forged).catch((x: unknown) => x);
    expect(e).toBeInstanceOf(AppError);
    expect((e as AppError).details?.status).toBe(401);
    expect(gh?.requestsTo('/app/installations/31/access_tokens')).toHaveLength(1);
  });
});
