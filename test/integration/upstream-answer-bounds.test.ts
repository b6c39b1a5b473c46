import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { allProviderTools } from '../../shared/wiring/provider-tools';
import { loadConfig } from '../../shared/config/config';
import { createHook } from '../../shared/providers/github/webhooks/hook-registration';
import { identifyAccount } from '../../shared/oauth/identify';
import { providerRegistry } from '../../shared/wiring/providers';
import { requestToken } from '../../shared/oauth/token-client';
import { fetchListPage } from '../../shared/providers/github/polling/poll-fetch';
import { pollOnce } from '../../shared/polling/poll-once';
import { ConnectionRepo } from '../../shared/store/connection-repo';
import { writeStoredToken } from '../../shared/store/stored-token';
import { systemClock } from '../../shared/ports';
import { invokeTool } from '../../shared/tools/invoke';
import { useFakeCodeHost } from '../helpers/code-host-setup';
import { rssGrowthMiB, startBombServer, type BombServer } from '../helpers/compression-bomb';
import { platformApiCaller } from '../helpers/platform-api-caller';
import { toolTestContext } from '../helpers/tool-context';

/**
 * Every caller that reads an answer from outside reads it through the bounded reader: a
 * code host (or a server a token connection's `apiBaseUrl` names) answering 1 MB of gzip
 * that inflates to 1 GiB gets `upstream_error` naming the limit, and the process's memory
 * barely moves (a Lambda has 512 MB). One caller per test; the verdict is on memory and
 * the error, never on time.
 */
let bomb: BombServer;
beforeAll(async () => {
  bomb = await startBombServer();
});
afterAll(async () => {
  await bomb.close();
});

const tooLarge = { code: 'upstream_error', details: { limitBytes: expect.any(Number) } };

describe('a gzip bomb answered to', () => {
  it('an Octokit tool step is upstream_error naming the limit', async () => {
    const t = await toolTestContext({ GITHUB_API_URL: bomb.url });
    const connection = await t.connect({});
    bomb.hits.length = 0;
    const { growthMiB, result } = await rssGrowthMiB(() =>
      invokeTool(
        t.ctx,
        { toolId: 'github.get_repository', connectionId: connection.id, input: { owner: 'octo', repo: 'hello' } },
        allProviderTools(),
      ),
    );
    expect(result).toMatchObject({ ok: false, error: tooLarge });
    expect((result as { error: { message: string } }).error.message).toMatch(/larger than \d+ bytes/);
    expect(growthMiB).toBeLessThan(100);
    // Not asked again: a retry would only download the same answer again.
    expect(bomb.hits).toHaveLength(1);
  });

  it('the connection check of POST /connections is upstream_error, and nothing is stored', async () => {
    const t = await toolTestContext();
    const call = platformApiCaller(t.ctx);
    const { growthMiB, result } = await rssGrowthMiB(() =>
      call('POST', '/connections', { provider: 'github', token: 'ghp_bombCheck', apiBaseUrl: bomb.url }),
    );
    expect(result).toMatchObject({ status: 502, body: { error: tooLarge } });
    expect(growthMiB).toBeLessThan(100);
    expect(t.secrets.values.size).toBe(0);
    expect((await call('GET', '/connections')).body.connections).toEqual([]);
  });

  it('hook registration is upstream_error naming the limit', async () => {
    const { growthMiB, result } = await rssGrowthMiB(() =>
      createHook(
        globalThis.fetch,
        { baseUrl: bomb.url, token: 'ghp_bombHook' },
        { kind: 'repository', repository: 'octo/hello' },
        { url: 'https://hooks.example/webhooks/github/ep', secret: 's' },
        ['issues'],
      ),
    );
    expect(result).toMatchObject(tooLarge);
    expect(growthMiB).toBeLessThan(100);
  });

  it('a poll of a list page is upstream_error naming the limit', async () => {
    const t = await toolTestContext({ GITHUB_API_URL: bomb.url });
    const connection = await t.connect({});
    const { growthMiB, result } = await rssGrowthMiB(() => fetchListPage(t.ctx, connection, '/gists?per_page=100'));
    expect(result).toMatchObject(tooLarge);
    expect(growthMiB).toBeLessThan(100);
  });

  it('the OAuth token call is a refused token answer naming the limit', async () => {
    const config = loadConfig({ PLATFORM_API_KEY: 'platform-key-for-tests-0123456789abcdef', GITHUB_OAUTH_URL: bomb.url });
    const def = providerRegistry.github.oauth;
    const { growthMiB, result } = await rssGrowthMiB(() =>
      requestToken(
        { fetch: globalThis.fetch, clock: systemClock },
        def,
        def.tokenEndpoint(config),
        { clientId: 'id', clientSecret: 'secret' },
        {
          grant_type: 'authorization_code',
          code: 'c',
        },
      ),
    );
    expect(result).toMatchObject({
      name: 'TokenEndpointError',
      kind: 'rejected',
      oauthError: 'answer_too_large',
      limitBytes: expect.any(Number),
    });
    expect(growthMiB).toBeLessThan(100);
  });

  it.each(['github', 'contentsnare'] as const)('the %s account look-up fails without holding the answer', async (provider) => {
    const config = loadConfig({
      PLATFORM_API_KEY: 'platform-key-for-tests-0123456789abcdef',
      GITHUB_API_URL: bomb.url,
      CONTENTSNARE_API_URL: bomb.url,
    });
    const { growthMiB, result } = await rssGrowthMiB(() =>
      identifyAccount({ config: config, fetch: globalThis.fetch, providers: providerRegistry }, provider, {
        token: { accessToken: 't' },
        raw: {},
      }),
    );
    expect(result).toMatchObject(
      provider === 'github'
        ? { name: 'AccountLookupError', limitBytes: expect.any(Number) }
        : { accountLogin: 'unknown', unknownBecause: expect.stringMatching(/size limit/) },
    );
    expect(growthMiB).toBeLessThan(100);
  });
});

/** As `GET /gists` answers. */
function gist(id: string, createdAt: string) {
  return {
    id,
    created_at: createdAt,
    updated_at: createdAt,
    description: `gist ${id}`,
    public: true,
    html_url: `https://gist.example/${id}`,
    files: {},
    owner: { login: 'gister' },
  };
}

describe('a poll round with one hostile source', () => {
  const token = 'ghp_boundsPollToken0000000000000000000000';
  const host = useFakeCodeHost({ [token]: 'gister' });

  it("still polls every other connection's sources", async () => {
    const t = await host.context();
    const good = await t.connect({ accountLogin: 'gister' }, token);
    const hostile = await t.connect({ accountLogin: 'gister' }, token);
    const call = platformApiCaller(t.ctx);
    host.github.gists.set('gister', [gist('old-1', '2026-01-01T00:00:00Z')]);
    for (const c of [good, hostile]) {
      const r = await call('POST', '/subscriptions', { connectionId: c.id, agentId: 'agent-g', trigger: 'github.new_gist' });
      expect(r.status).toBe(201);
    }
    expect(await pollOnce(t.ctx)).toMatchObject({ failed: 0, announced: 0 });
    // The hostile connection now names a server of its own (as a token connection's apiBaseUrl can).
    await new ConnectionRepo(t.ctx.store).update(hostile.id, (c) => ({ ...c, apiBaseUrl: bomb.url }));
    await writeStoredToken(t.ctx.secrets, hostile, { accessToken: token, origin: bomb.url });
    host.github.gists.set('gister', [gist('new-1', '2026-01-03T00:00:00Z'), gist('old-1', '2026-01-01T00:00:00Z')]);

    const { growthMiB, result } = await rssGrowthMiB(() => pollOnce(t.ctx));
    expect(result, JSON.stringify(result)).toMatchObject({ failed: 1, announced: 1 });
    expect(growthMiB).toBeLessThan(100);
  });
});
