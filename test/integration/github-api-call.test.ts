import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import * as z from 'zod';
import { apiCall } from '../../shared/providers/github/api-call';
import { githubClientFactory } from '../../shared/providers/github/client-factory';
import { mapGitHubError } from '../../shared/providers/github/github-errors';
import type { GitHubClient } from '../../shared/providers/github/octokit';
import { invokeTool, type ToolResult } from '../../shared/tools/invoke';
import { defineProvider, type ProviderTools, type ToolStep } from '../../shared/tools/tool-step';
import { startFakeHttp, type FakeServer } from '../helpers/fake-http';
import { toolTestContext, type ToolTestContext } from '../helpers/tool-context';

const token = 'ghp_apiCallTestToken000000000000000000000';

const rawStep: ToolStep<z.ZodType, z.ZodType, GitHubClient> = {
  ...apiCall,
  id: 'github.test_octokit_get',
  output: z.unknown(),
  // Same input; runs through Octokit instead, to show its client keeps to the base as well.
  run: async (i: { endpoint: string }, client: GitHubClient) => (await client.request(`GET ${i.endpoint}`)).data,
} as ToolStep<z.ZodType, z.ZodType, GitHubClient>;

const tools: ProviderTools[] = [
  defineProvider({
    provider: 'github',
    steps: [apiCall, rawStep],
    client: githubClientFactory,
    mapError: (e, nowMs) => mapGitHubError(e, nowMs),
  }),
];

describe('github.api_call', () => {
  let host: FakeServer;
  let elsewhere: FakeServer;
  let t: ToolTestContext;
  let connectionId: string;
  const call = (input: unknown, toolId = 'github.api_call'): Promise<ToolResult> =>
    invokeTool(t.ctx, { toolId, connectionId, input }, tools);

  beforeAll(async () => {
    host = await startFakeHttp();
    elsewhere = await startFakeHttp(() => ({ body: { stolen: true } }));
    t = await toolTestContext({ GITHUB_API_URL: host.url });
    connectionId = (await t.connect({}, token)).id;
  });
  afterAll(async () => {
    await host.close();
    await elsewhere.close();
  });
  beforeEach(() => {
    host.requests.length = 0;
    elsewhere.requests.length = 0;
    host.setHandler(() => ({
      headers: { 'set-cookie': 'session=abc', 'x-ratelimit-remaining': '4999', etag: '"e1"' },
      body: { hello: 'world' },
    }));
  });

  it('applies the token, defaults accept, and never echoes the token', async () => {
    const result = await call({ method: 'GET', endpoint: '/repos/octo/hello' });
    expect(result).toEqual({ ok: true, data: { status: 200, headers: expect.any(Object), data: { hello: 'world' } } });
    const sent = host.requests[0]!;
    expect(sent.headers.authorization).toBe(`Bearer ${token}`);
    expect(sent.headers.accept).toBe('application/vnd.github+json');
    expect(sent.headers['user-agent']).toBe('agent-integrations');
    expect(JSON.stringify(result)).not.toContain(token);
    expect(t.logLines.join('\n')).not.toContain(token);
  });

  it('passes only a safe subset of response headers', async () => {
    const result = await call({ method: 'GET', endpoint: '/user' });
    if (!result.ok) throw new Error('expected ok');
    const headers = (result.data as { headers: Record<string, string> }).headers;
    expect(headers.etag).toBe('"e1"');
    expect(headers['x-ratelimit-remaining']).toBe('4999');
    expect(headers['set-cookie']).toBeUndefined();
  });

  it("keeps a caller accept header and merges the query into the endpoint's", async () => {
    await call({
      method: 'GET',
      endpoint: '/repos/octo/hello/issues?state=open',
      query: { per_page: 5, labels: 'a b' },
      headers: { Accept: 'application/vnd.github.raw+json' },
    });
    const sent = host.requests[0]!;
    expect(sent.headers.accept).toBe('application/vnd.github.raw+json');
    expect(sent.path).toBe('/repos/octo/hello/issues');
    expect(Object.fromEntries(sent.query)).toEqual({ state: 'open', per_page: '5', labels: 'a b' });
  });

  it('sends a JSON body with its content type', async () => {
    await call({ method: 'POST', endpoint: '/repos/octo/hello/issues', body: { title: 'Hi', labels: ['bug'] } });
    const sent = host.requests[0]!;
    expect(sent.method).toBe('POST');
    expect(sent.headers['content-type']).toBe('application/json');
    expect(sent.json).toEqual({ title: 'Hi', labels: ['bug'] });
  });

  it('answers invalid_input naming a header whose value is not Latin-1, instead of failing in fetch', async () => {
    const result = await call({ method: 'GET', endpoint: '/user', headers: { 'X-Note': 'r\u00e9sum\u00e9 \u2713' } });
    expect(result).toMatchObject({ ok: false, error: { code: 'invalid_input', details: { fields: [{ field: 'input.headers.X-Note' }] } } });
    expect(host.requests).toHaveLength(0);
  });

  it('describes the request on dryRun without sending it or showing the token', async () => {
    const result = await call({ method: 'DELETE', endpoint: '/repos/octo/hello', dryRun: true });
    expect(result).toMatchObject({ ok: true, data: { dryRun: true, request: { method: 'DELETE', url: `${host.url}/repos/octo/hello` } } });
    expect(JSON.stringify(result)).not.toContain(token);
    expect(host.requests).toHaveLength(0);
  });

  it('does not follow a redirect to another origin: the other server receives nothing (RELIABILITY 28)', async () => {
    host.setHandler(() => ({ status: 302, headers: { location: `${elsewhere.url}/steal` } }));
    const result = await call({ method: 'GET', endpoint: '/repos/octo/hello' });
    expect(result).toMatchObject({ ok: true, data: { status: 302, headers: { location: `${elsewhere.url}/steal` } } });
    const viaOctokit = await call({ method: 'GET', endpoint: '/repos/octo/hello' }, 'github.test_octokit_get');
    // Octokit hands the unfollowed 3xx back empty-bodied: no answer at all, so upstream_error naming it.
    expect(viaOctokit).toMatchObject({ ok: false, error: { code: 'upstream_error', details: { status: 302 } } });
    expect(elsewhere.requests).toHaveLength(0);
    expect(host.requests).toHaveLength(2);
  });

  it('does not follow even a redirect within the API base: the 3xx comes back, so every path sent passes the guard and the allow-list', async () => {
    host.setHandler((req) =>
      req.path === '/repos/octo/old' ? { status: 301, headers: { location: '/repositories/42' } } : { body: { at: req.path } },
    );
    expect(await call({ method: 'GET', endpoint: '/repos/octo/old' })).toMatchObject({
      ok: true,
      data: { status: 301, headers: { location: '/repositories/42' } },
    });
    expect(host.requests.map((r) => r.path)).toEqual(['/repos/octo/old']);
  });

  it('Octokit steps follow a redirect within the API base (renamed repositories), with the token, at most three times', async () => {
    host.setHandler((req) =>
      req.path === '/repos/octo/old' ? { status: 301, headers: { location: '/repos/octo/new' } } : { body: { at: req.path } },
    );
    expect(await call({ method: 'GET', endpoint: '/repos/octo/old' }, 'github.test_octokit_get')).toMatchObject({
      ok: true,
      data: { at: '/repos/octo/new' },
    });
    expect(host.requests.map((r) => [r.path, r.headers.authorization])).toEqual([
      ['/repos/octo/old', `token ${token}`],
      ['/repos/octo/new', `token ${token}`],
    ]);
    host.requests.length = 0;
    host.setHandler((req) => ({ status: 302, headers: { location: `${req.path}x` } }));
    await call({ method: 'GET', endpoint: '/loop' }, 'github.test_octokit_get');
    expect(host.requests).toHaveLength(4);
  });

  it('does not follow a redirect that leaves an enterprise base path on the same origin', async () => {
    const ghe = await startFakeHttp((req) =>
      req.path.startsWith('/api/v3/') ? { status: 302, headers: { location: '/login/elsewhere' } } : { body: {} },
    );
    try {
      const c = await t.connect({ apiBaseUrl: `${ghe.url}/api/v3` }, token);
      const result = await invokeTool(
        t.ctx,
        { toolId: 'github.api_call', connectionId: c.id, input: { method: 'GET', endpoint: '/user' } },
        tools,
      );
      expect(result).toMatchObject({ ok: true, data: { status: 302 } });
      expect(ghe.requests.map((r) => r.path)).toEqual(['/api/v3/user']);
    } finally {
      await ghe.close();
    }
  });

  it("maps the code host's failures to codes with the status in details", async () => {
    const cases: Array<[number, Record<string, string>, unknown, string]> = [
      [404, {}, { message: 'Not Found' }, 'not_found'],
      [401, {}, { message: 'Bad credentials' }, 'reconnect_required'],
      [
        403,
        { 'x-accepted-github-permissions': 'issues=write' },
        { message: 'Resource not accessible by personal access token' },
        'forbidden',
      ],
      [422, {}, { message: 'Validation Failed', errors: [{ resource: 'Issue', field: 'title', code: 'missing_field' }] }, 'invalid_input'],
      [409, {}, { message: 'Git Repository is empty.' }, 'conflict'],
      [500, {}, 'oops', 'upstream_error'],
      [502, {}, { message: 'Server Error' }, 'upstream_error'],
    ];
    for (const [status, headers, body, code] of cases) {
      host.setHandler(() => ({ status, headers, body }));
      const result = await call({ method: 'POST', endpoint: '/repos/octo/hello/issues', body: {} });
      expect(result, `status ${status}`).toMatchObject({ ok: false, error: { code, details: { status } } });
    }
    host.setHandler(() => ({
      status: 403,
      headers: { 'x-accepted-github-permissions': 'issues=write' },
      body: { message: 'Resource not accessible' },
    }));
    expect(await call({ method: 'GET', endpoint: '/user' })).toMatchObject({
      ok: false,
      error: { code: 'forbidden', message: expect.stringContaining('issues=write'), details: { acceptedPermissions: 'issues=write' } },
    });
    // A 5xx on a write is answered, never silently repeated.
    host.requests.length = 0;
    host.setHandler(() => ({ status: 500, body: { message: 'boom' } }));
    await call({ method: 'POST', endpoint: '/repos/octo/hello/issues', body: { title: 't' } });
    expect(host.requests).toHaveLength(1);
  });

  it('answers rate_limited with retryAfter when the reset is beyond the wait limit', async () => {
    const reset = Math.floor(Date.now() / 1000) + 3600;
    host.setHandler(() => ({
      status: 403,
      headers: { 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': String(reset) },
      body: { message: 'API rate limit exceeded' },
    }));
    const result = await call({ method: 'GET', endpoint: '/user' });
    expect(result).toMatchObject({ ok: false, error: { code: 'rate_limited', details: { status: 403 } } });
    if (result.ok) return;
    expect(result.error.details?.retryAfter).toBeGreaterThan(3000);
    expect(host.requests).toHaveLength(1);
  });

  it('waits out a short retry-after and then succeeds', async () => {
    let n = 0;
    host.setHandler(() =>
      n++ === 0 ? { status: 429, headers: { 'retry-after': '1' }, body: { message: 'slow down' } } : { body: { ok: 1 } },
    );
    const slept = t.sleeps.length;
    expect(await call({ method: 'GET', endpoint: '/user' })).toMatchObject({ ok: true, data: { status: 200, data: { ok: 1 } } });
    expect(host.requests).toHaveLength(2);
    // The wait went through the context's sleep (instant in tests), for the whole retry-after.
    expect(t.sleeps.slice(slept)).toEqual([1000]);
  });
});
