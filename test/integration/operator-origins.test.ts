import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { allProviderTools } from '../../shared/wiring/provider-tools';
import { loadConfig } from '../../shared/config/config';
import { identifyAccount } from '../../shared/oauth/identify';
import { providerRegistry } from '../../shared/wiring/providers';
import { invokeTool } from '../../shared/tools/invoke';
import { startFakeHttp, type FakeServer } from '../helpers/fake-http';
import { platformApiCaller } from '../helpers/platform-api-caller';
import { toolTestContext } from '../helpers/tool-context';

/**
 * No redirect is followed to where it should not go, and the origins the operator
 * configured for the product's own calls (the agent runtime, PUBLIC_URL) are not reachable
 * through a connection's `apiBaseUrl`: they skip the address check because the operator
 * named them, not because a caller did.
 */
let trap: FakeServer;
let runtime: FakeServer;
let publicSite: FakeServer;
beforeAll(async () => {
  trap = await startFakeHttp(() => ({ status: 200, body: { login: 'metadata', id: 1 } }));
  runtime = await startFakeHttp(() => ({ status: 200, body: { login: 'agent-runtime', id: 2 } }));
  publicSite = await startFakeHttp(() => ({ status: 200, body: { login: 'public-url', id: 3 } }));
});
afterAll(async () => {
  await Promise.all([trap.close(), runtime.close(), publicSite.close()]);
});

describe('the OAuth account look-ups', () => {
  it.each(['github', 'contentsnare'] as const)('of %s follow no redirect (to the metadata address or anywhere)', async (provider) => {
    const redirecting = await startFakeHttp(() => ({
      status: 302,
      headers: { location: `${trap.url}/latest/meta-data/iam/security-credentials/` },
    }));
    try {
      const config = loadConfig({
        PLATFORM_API_KEY: 'platform-key-for-tests-0123456789abcdef',
        GITHUB_API_URL: redirecting.url,
        CONTENTSNARE_API_URL: redirecting.url,
      });
      trap.requests.length = 0;
      const e = await identifyAccount({ config: config, fetch: globalThis.fetch, providers: providerRegistry }, provider, {
        token: { accessToken: 't' },
        raw: {},
      }).catch((x: unknown) => x);
      // The code host's look-up fails the connect; the collection service's leaves the identity unknown.
      expect(e).toMatchObject(provider === 'github' ? { name: 'AccountLookupError' } : { accountLogin: 'unknown' });
      expect(redirecting.requests).toHaveLength(1);
      expect(trap.requests).toHaveLength(0);
    } finally {
      await redirecting.close();
    }
  });
});

describe("a connection's apiBaseUrl on an origin the operator configured for the product's own calls", () => {
  const env = () => ({ AGENT_RUNTIME_URL: `${runtime.url}/events`, PUBLIC_URL: publicSite.url });

  it.each([
    ['the agent runtime', () => runtime],
    ['PUBLIC_URL', () => publicSite],
  ])('is refused at POST /connections (%s), before the token is sent there', async (_what, server) => {
    const t = await toolTestContext(env());
    server().requests.length = 0;
    const r = await platformApiCaller(t.ctx)('POST', '/connections', {
      provider: 'github',
      token: 'ghp_operatorOrigin',
      apiBaseUrl: `${server().url}/api/v3`,
    });
    expect(r).toMatchObject({ status: 403, body: { error: { code: 'forbidden', details: { reason: 'operator_origin' } } } });
    expect(server().requests).toHaveLength(0);
    expect(t.secrets.values.size).toBe(0);
  });

  it('turns no tool step into a way to reach the agent runtime, even for a connection stored before it was configured', async () => {
    const t = await toolTestContext(env());
    const connection = await t.connect({ apiBaseUrl: runtime.url });
    runtime.requests.length = 0;
    for (const [toolId, input] of [
      ['github.api_call', { method: 'GET', endpoint: '/events' }],
      ['github.get_repository', { owner: 'octo', repo: 'hello' }],
    ] as const) {
      const r = await invokeTool(t.ctx, { toolId, connectionId: connection.id, input }, allProviderTools());
      expect(r).toMatchObject({ ok: false, error: { code: 'forbidden', details: { reason: 'operator_origin' } } });
    }
    expect(runtime.requests).toHaveLength(0);
  });
});
