import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { apiCall } from '../../shared/providers/github/api-call';
import { githubClientFactory } from '../../shared/providers/github/client-factory';
import { mapGitHubError } from '../../shared/providers/github/github-errors';
import { invokeTool, type ToolResult } from '../../shared/tools/invoke';
import { defineProvider, type ProviderTools } from '../../shared/tools/tool-step';
import { startFakeHttp, type FakeServer } from '../helpers/fake-http';
import { toolTestContext, type ToolTestContext } from '../helpers/tool-context';

const tools: ProviderTools[] = [
  defineProvider({
    provider: 'github',
    steps: [apiCall],
    client: githubClientFactory,
    mapError: (e, nowMs) => mapGitHubError(e, nowMs),
  }),
];

/**
 * docs/security.md, section 2: on a connection limited to repositories, `github.api_call` reaches only paths
 * it can prove stay inside the allow-list; every other path is refused before anything is
 * sent, with the rule named.
 */
describe('github.api_call on a connection with an allow-list (deny by default)', () => {
  let host: FakeServer;
  let t: ToolTestContext;
  let limited: string;
  let open: string;
  const call = (connectionId: string, input: unknown): Promise<ToolResult> =>
    invokeTool(t.ctx, { toolId: 'github.api_call', connectionId, input }, tools);

  beforeAll(async () => {
    host = await startFakeHttp();
    t = await toolTestContext({ GITHUB_API_URL: host.url });
    limited = (await t.connect({ repositories: ['octo/allowed', 'Team/Tools'] })).id;
    open = (await t.connect({})).id;
  });
  afterAll(async () => {
    await host.close();
  });
  beforeEach(() => {
    host.requests.length = 0;
    host.setHandler(() => ({ body: { ok: 1 } }));
  });

  // Every attack path of the red-team report, and the neighbours of each.
  const refused: Array<[string, string, Record<string, unknown>?]> = [
    ['GET', '/repos//other/secret'],
    ['GET', '/repos/other/secret'],
    ['GET', '/repos/octo%2Fallowed/issues'],
    ['GET', '/repos/octo/allowed%2Fissues'],
    ['GET', '/repos/octo/allowed/contents/a%2Fb'],
    ['GET', '/repos/octo/allowed%2e/issues'],
    ['GET', '/repos/octo/allowed//issues'],
    ['GET', '/repos/oct%6F/allowed/issues'],
    ['GET', '/search/code?q=repo:other/secret'],
    ['GET', '/search/issues?q=repo:other/secret'],
    ['GET', '/search/repositories?q=secret'],
    ['GET', '/networks/other/secret/events'],
    ['GET', '/networks/octo/allowed/events'],
    ['GET', '/user/repos'],
    ['GET', '/user'],
    ['GET', '/orgs/octo/repos'],
    ['POST', '/orgs/octo/hooks', { name: 'web', config: { url: 'https://evil.example' } }],
    ['POST', '/user/keys', { key: 'ssh-ed25519 AAAA' }],
    ['POST', '/user/repos', { name: 'new' }],
    ['GET', '/repositories/1234/issues'],
    ['GET', '/repositories'],
    ['POST', '/graphql', { query: '{ viewer { login } }' }],
    ['GET', '/gists'],
    ['GET', '/'],
    ['POST', '/repos/octo/allowed/forks', { organization: 'elsewhere' }],
    ['POST', '/repos/octo/allowed/generate', { owner: 'elsewhere', name: 'copy' }],
    ['POST', '/repos/octo/allowed/transfer', { new_owner: 'elsewhere' }],
    ['GET', '/repos/octo/allowed/compare/main...other:secret-branch'],
    ['GET', '/repos/octo/allowed/compare/main...other%3Asecret-branch'],
  ];

  it.each(refused)(
    'refuses %s %s before anything is sent, naming the rule and the allowed repositories',
    async (method, endpoint, body) => {
      const r = await call(limited, { method, endpoint, ...(body ? { body } : {}) });
      expect(r).toMatchObject({
        ok: false,
        error: { code: 'forbidden', details: { reason: 'outside_allow_list', allowed: ['octo/allowed', 'Team/Tools'] } },
      });
      if (!r.ok) {
        expect(r.error.message).toContain('octo/allowed');
        expect(typeof r.error.details?.rule).toBe('string');
      }
      expect(host.requests).toHaveLength(0);
    },
  );

  it('refuses dot segments in any encoding for every connection (the URL guard, before the allow-list)', async () => {
    for (const endpoint of [
      '/repos/octo/allowed/%2e%2e/%2e%2e/other/secret',
      '/repos/octo/allowed%2F..%2F..%2Fother%2Fsecret',
      '/repos/octo/allowed/contents/a%2F..%2F..%2F..%2Fother%2Fsecret',
    ]) {
      expect(await call(limited, { method: 'GET', endpoint }), endpoint).toMatchObject({ ok: false, error: { code: 'invalid_input' } });
    }
    expect(host.requests).toHaveLength(0);
  });

  it('refuses on dryRun as well: a dry run must not describe a call that would be refused', async () => {
    const r = await call(limited, { method: 'GET', endpoint: '/search/code?q=repo:other/secret', dryRun: true });
    expect(r).toMatchObject({ ok: false, error: { code: 'forbidden', details: { reason: 'outside_allow_list' } } });
  });

  it('sends paths under an allowed repository, whatever the letter case', async () => {
    const allowed: Array<[string, string, Record<string, unknown>?]> = [
      ['GET', '/repos/octo/allowed'],
      ['GET', '/repos/OCTO/Allowed/issues?state=open'],
      ['GET', '/repos/team/tools/contents/docs/readme.md'],
      ['POST', '/repos/octo/allowed/issues', { title: 'x' }],
      ['GET', '/repos/octo/allowed/forks'],
      ['GET', '/repos/octo/allowed/compare/main...feature'],
      ['PATCH', '/repos/octo/allowed/issues/1', { state: 'closed' }],
    ];
    for (const [method, endpoint, body] of allowed) {
      const r = await call(limited, { method, endpoint, ...(body ? { body } : {}) });
      expect(r, `${method} ${endpoint}`).toMatchObject({ ok: true, data: { status: 200 } });
    }
    expect(host.requests.map((r) => r.path)).toEqual([
      '/repos/octo/allowed',
      '/repos/OCTO/Allowed/issues',
      '/repos/team/tools/contents/docs/readme.md',
      '/repos/octo/allowed/issues',
      '/repos/octo/allowed/forks',
      '/repos/octo/allowed/compare/main...feature',
      '/repos/octo/allowed/issues/1',
    ]);
  });

  it('checks the path below an enterprise base path, however the endpoint is written', async () => {
    const ghe = await startFakeHttp(() => ({ body: {} }));
    try {
      const c = await t.connect({ apiBaseUrl: `${ghe.url}/api/v3`, repositories: ['octo/allowed'] });
      for (const endpoint of ['/repos/octo/allowed/issues', '/api/v3/repos/octo/allowed/issues']) {
        expect(await call(c.id, { method: 'GET', endpoint }), endpoint).toMatchObject({ ok: true, data: { status: 200 } });
      }
      for (const endpoint of ['/api/v3/search/code?q=repo:other/secret', '/api/v3/repos/other/secret', '/api/v3//repos/octo/allowed']) {
        expect(await call(c.id, { method: 'GET', endpoint }), endpoint).toMatchObject({ ok: false });
      }
      expect(ghe.requests.map((r) => r.path)).toEqual(['/api/v3/repos/octo/allowed/issues', '/api/v3/repos/octo/allowed/issues']);
    } finally {
      await ghe.close();
    }
  });

  it("keeps today's behaviour on a connection without an allow-list", async () => {
    for (const endpoint of ['/search/code?q=repo:any/thing', '/user/repos', '/repositories/1234', '/networks/o/r/events']) {
      expect(await call(open, { method: 'GET', endpoint }), endpoint).toMatchObject({ ok: true, data: { status: 200 } });
    }
    expect(await call(open, { method: 'POST', endpoint: '/repos/octo/allowed/forks', body: {} })).toMatchObject({ ok: true });
    expect(host.requests).toHaveLength(5);
  });
});
