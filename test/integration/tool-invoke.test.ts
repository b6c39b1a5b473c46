import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createToolStepHandler } from '../../functions/tool-step/create-handler';
import { apiCall } from '../../shared/providers/github/api-call';
import { githubClientFactory } from '../../shared/providers/github/client-factory';
import { mapGitHubError } from '../../shared/providers/github/github-errors';
import type { GitHubClient } from '../../shared/providers/github/octokit';
import { createRouter } from '../../shared/http/router';
import { catalog } from '../../shared/tools/catalog';
import { invokeTool, type ToolResult } from '../../shared/tools/invoke';
import { defineProvider, type ProviderTools, type ToolStep } from '../../shared/tools/tool-step';
import { toolRoutes } from '../../shared/tools/tool-routes';
import { startFakeHttp, type FakeServer } from '../helpers/fake-http';
import { toolTestContext, type ToolTestContext } from '../helpers/tool-context';

const token = 'ghp_invokeTestToken0000000000000000000000';

// A step shaped like the pre-built ones (code host parameter names, allow-list aware).
const getIssue: ToolStep<z.ZodType, z.ZodType, GitHubClient> = {
  id: 'github.test_get_issue',
  provider: 'github',
  title: 'Get issue (test)',
  toolset: 'issues',
  description: 'test step',
  output: z.looseObject({ number: z.number() }),
  permissions: { fineGrained: { issues: 'read' }, oauthScopes: ['repo'] },
  input: z.object({ owner: z.string().min(1), repo: z.string().min(1), issue_number: z.number().int().positive() }),
  repositoryOf: (i: { owner: string; repo: string }) => `${i.owner}/${i.repo}`,
  run: async (i: { owner: string; repo: string; issue_number: number }, client: GitHubClient) =>
    (
      await client.request('GET /repos/{owner}/{repo}/issues/{issue_number}', {
        owner: i.owner,
        repo: i.repo,
        issue_number: i.issue_number,
      })
    ).data,
} as ToolStep<z.ZodType, z.ZodType, GitHubClient>;

const tools: ProviderTools[] = [
  defineProvider({
    provider: 'github',
    steps: [getIssue, apiCall],
    client: githubClientFactory,
    mapError: (e, nowMs) => mapGitHubError(e, nowMs),
  }),
  {
    provider: 'contentsnare',
    steps: [
      {
        id: 'contentsnare.test_step',
        provider: 'contentsnare',
        title: 't',
        toolset: 'contentsnare',
        description: 't',
        output: z.object({}),
        permissions: { oauthScopes: [] },
        input: z.object({ name: z.string() }),
        run: async () => ({}),
      },
    ],
    client: async () => ({}),
  },
];

describe('tool invoke', () => {
  let fake: FakeServer;
  let t: ToolTestContext;
  const invoke = (toolId: string, connectionId: string, input: unknown): Promise<ToolResult> =>
    invokeTool(t.ctx, { toolId, connectionId, input }, tools);

  beforeAll(async () => {
    fake = await startFakeHttp();
    t = await toolTestContext({ GITHUB_API_URL: fake.url });
  });
  afterAll(() => fake.close());
  beforeEach(() => {
    fake.requests.length = 0;
    fake.setHandler((req) =>
      req.path === '/repos/octo/hello/issues/7' ? { body: { number: 7, title: 'Bug' } } : { status: 404, body: { message: 'Not Found' } },
    );
  });

  it('answers ok with the data and counts the step', async () => {
    const c = await t.connect({}, token);
    const result = await invoke('github.test_get_issue', c.id, { owner: 'octo', repo: 'hello', issue_number: 7 });
    expect(result).toEqual({ ok: true, data: { number: 7, title: 'Bug' } });
    expect(fake.requests[0]?.headers.authorization).toBe(`token ${token}`);
    expect(fake.requests[0]?.headers['user-agent']).toMatch(/^agent-integrations/);
    expect(t.metrics.counts.get('tool_step|toolId=github.test_get_issue,outcome=ok')).toBeGreaterThanOrEqual(1);
    expect(t.logLines.join('\n')).not.toContain(token);
    expect(t.logLines.some((l) => l.includes('"outcome":"ok"') && l.includes(c.id))).toBe(true);
  });

  it('answers not_found for an unknown tool', async () => {
    const result = await invoke('github.nope', 'conn_x', {});
    expect(result).toMatchObject({ ok: false, error: { code: 'not_found' } });
  });

  it('names every bad field under input. and sends nothing to the code host', async () => {
    const c = await t.connect({}, token);
    const result = await invoke('github.test_get_issue', c.id, { owner: '', issue_number: 'seven' });
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.error.code).toBe('invalid_input');
    const fields = (result.error.details?.fields as Array<{ field: string }> | undefined)?.map((f) => f.field).sort();
    expect(fields).toEqual(['input.issue_number', 'input.owner', 'input.repo']);
    expect(result.error.message).toContain('input.repo');
    expect(fake.requests).toHaveLength(0);
  });

  it('checks the connection id format before touching the store', async () => {
    const result = await invoke('github.test_get_issue', 'CONN#bad key', { owner: 'o', repo: 'r', issue_number: 1 });
    expect(result).toMatchObject({ ok: false, error: { code: 'invalid_input', details: { fields: [{ field: 'connectionId' }] } } });
  });

  it('answers connection_not_found for an unknown connection', async () => {
    const result = await invoke('github.test_get_issue', 'conn_doesnotexist', { owner: 'o', repo: 'r', issue_number: 1 });
    expect(result).toMatchObject({ ok: false, error: { code: 'connection_not_found' } });
    expect(fake.requests).toHaveLength(0);
  });

  it('answers reconnect_required for a connection that must be reconnected, sending nothing', async () => {
    const c = await t.connect({ status: 'reconnect_required', statusReason: 'token revoked' }, token);
    const result = await invoke('github.test_get_issue', c.id, { owner: 'octo', repo: 'hello', issue_number: 7 });
    expect(result).toMatchObject({ ok: false, error: { code: 'reconnect_required' } });
    expect(fake.requests).toHaveLength(0);
  });

  it('refuses a step of another provider with invalid_input on connectionId', async () => {
    const c = await t.connect({ provider: 'contentsnare' }, token);
    const result = await invoke('github.test_get_issue', c.id, { owner: 'octo', repo: 'hello', issue_number: 7 });
    expect(result).toMatchObject({ ok: false, error: { code: 'invalid_input', details: { fields: [{ field: 'connectionId' }] } } });
  });

  it('refuses a repository outside the allow-list with forbidden and sends nothing', async () => {
    const c = await t.connect({ repositories: ['octo/other'] }, token);
    const step = await invoke('github.test_get_issue', c.id, { owner: 'octo', repo: 'hello', issue_number: 7 });
    expect(step).toMatchObject({ ok: false, error: { code: 'forbidden' } });
    const call = await invoke('github.api_call', c.id, { method: 'GET', endpoint: '/repos/octo/hello/issues/7' });
    expect(call).toMatchObject({ ok: false, error: { code: 'forbidden' } });
    const byId = await invoke('github.api_call', c.id, { method: 'GET', endpoint: '/repositories/1234/issues' });
    expect(byId).toMatchObject({ ok: false, error: { code: 'forbidden' } });
    expect(fake.requests).toHaveLength(0);
  });

  it('allows a listed repository whatever its letter case', async () => {
    const c = await t.connect({ repositories: ['Octo/Hello'] }, token);
    expect(await invoke('github.test_get_issue', c.id, { owner: 'octo', repo: 'hello', issue_number: 7 })).toMatchObject({ ok: true });
    expect(await invoke('github.api_call', c.id, { method: 'GET', endpoint: '/repos/OCTO/HELLO/issues/7' })).toMatchObject({
      ok: false,
      error: { code: 'not_found' },
    });
    expect(fake.requests).toHaveLength(2);
  });

  it("sends to the connection's enterprise API base instead of GITHUB_API_URL", async () => {
    const ghe = await startFakeHttp((req) => ({ body: { number: 7, path: req.path } }));
    try {
      const c = await t.connect({ apiBaseUrl: `${ghe.url}/api/v3` }, token);
      const step = await invoke('github.test_get_issue', c.id, { owner: 'octo', repo: 'hello', issue_number: 7 });
      expect(step).toEqual({ ok: true, data: { number: 7, path: '/api/v3/repos/octo/hello/issues/7' } });
      const call = await invoke('github.api_call', c.id, { method: 'GET', endpoint: '/repos/octo/hello' });
      expect(call).toMatchObject({ ok: true, data: { status: 200, data: { path: '/api/v3/repos/octo/hello' } } });
      expect(fake.requests).toHaveLength(0);
      expect(ghe.requests.map((r) => r.headers.authorization)).toEqual([`token ${token}`, `Bearer ${token}`]);
    } finally {
      await ghe.close();
    }
  });

  it("maps the code host's answers to stable codes", async () => {
    const c = await t.connect({}, token);
    const input = { owner: 'octo', repo: 'hello', issue_number: 7 };
    fake.setHandler(() => ({ status: 401, body: { message: 'Bad credentials' } }));
    expect(await invoke('github.test_get_issue', c.id, input)).toMatchObject({
      ok: false,
      error: { code: 'reconnect_required', details: { status: 401 } },
    });
    fake.setHandler(() => ({ status: 404, body: { message: 'Not Found' } }));
    expect(await invoke('github.test_get_issue', c.id, input)).toMatchObject({ ok: false, error: { code: 'not_found' } });
    fake.setHandler(() => ({ status: 422, body: { message: 'Validation Failed', errors: [{ field: 'title', code: 'missing_field' }] } }));
    expect(await invoke('github.test_get_issue', c.id, input)).toMatchObject({
      ok: false,
      error: { code: 'invalid_input', details: { status: 422, errors: [{ field: 'title', code: 'missing_field' }] } },
    });
    fake.setHandler(() => ({ status: 409, body: { message: 'Conflict' } }));
    expect(await invoke('github.test_get_issue', c.id, input)).toMatchObject({ ok: false, error: { code: 'conflict' } });
  });

  it('answers internal with a generic message when a step throws something unexpected', async () => {
    const boom = {
      ...getIssue,
      id: 'github.test_boom',
      run: async () => {
        throw new Error(`leak ${token}`);
      },
    } as ToolStep<z.ZodType, z.ZodType, GitHubClient>;
    const c = await t.connect({}, token);
    const result = await invokeTool(
      t.ctx,
      { toolId: 'github.test_boom', connectionId: c.id, input: { owner: 'o', repo: 'r', issue_number: 1 } },
      [{ ...(tools[0] as ProviderTools), steps: [boom as ToolStep] }],
    );
    expect(result).toMatchObject({ ok: false, error: { code: 'internal' } });
    expect(JSON.stringify(result)).not.toContain(token);
    expect(t.logLines.join('\n')).not.toContain(token);
  });

  it('lists every step in the catalog with its JSON Schema and required fields', () => {
    const entries = catalog(tools);
    expect(entries.map((e) => e.id)).toEqual(['github.test_get_issue', 'github.api_call', 'contentsnare.test_step']);
    const issue = entries[0]!;
    expect(issue.inputSchema).toMatchObject({ type: 'object', required: ['owner', 'repo', 'issue_number'] });
    const call = entries[1]!;
    expect(call.inputSchema).toMatchObject({ type: 'object', required: ['method', 'endpoint'] });
    expect(call.destructive).toBe(true);
    expect((call.inputSchema.properties as Record<string, { enum?: string[] }>).method?.enum).toEqual([
      'GET',
      'POST',
      'PUT',
      'PATCH',
      'DELETE',
    ]);
  });

  describe('over HTTP and Lambda', () => {
    const auth = { authorization: 'Bearer platform-key-for-tests-0123456789abcdef', 'content-type': 'application/json' };
    const request = (method: string, path: string, body?: unknown, headers: Record<string, string> = auth) => ({
      method,
      path,
      headers,
      query: new URLSearchParams(),
      body: Buffer.from(body === undefined ? '' : JSON.stringify(body)),
    });

    it('serves GET /tools and refuses it without the platform key', async () => {
      const router = createRouter(toolRoutes(t.ctx, tools), { platformApiKey: t.ctx.platformApiKey });
      const ok = await router(request('GET', '/tools'));
      expect(ok.status).toBe(200);
      expect((JSON.parse(String(ok.body)) as { tools: Array<{ id: string }> }).tools.map((x) => x.id)).toContain('github.api_call');
      expect((await router(request('GET', '/tools', undefined, {}))).status).toBe(401);
      expect((await router(request('POST', '/tools/github.api_call/invoke', {}, {}))).status).toBe(401);
    });

    it('answers POST /tools/{id}/invoke with the ToolResult, the status mirroring its code', async () => {
      const router = createRouter(toolRoutes(t.ctx, tools), { platformApiKey: t.ctx.platformApiKey });
      const c = await t.connect({}, token);
      const ok = await router(
        request('POST', '/tools/github.test_get_issue/invoke', {
          connectionId: c.id,
          input: { owner: 'octo', repo: 'hello', issue_number: 7 },
        }),
      );
      expect(ok.status).toBe(200);
      expect(JSON.parse(String(ok.body))).toEqual({ ok: true, data: { number: 7, title: 'Bug' } });
      const bad = await router(request('POST', '/tools/github.test_get_issue/invoke', { connectionId: c.id, input: {} }));
      expect(bad.status).toBe(400);
      expect(JSON.parse(String(bad.body))).toMatchObject({ ok: false, error: { code: 'invalid_input' } });
      const missing = await router(
        request('POST', '/tools/github.test_get_issue/invoke', {
          connectionId: 'conn_missing',
          input: { owner: 'o', repo: 'r', issue_number: 1 },
        }),
      );
      expect(missing.status).toBe(404);
      expect(JSON.parse(String(missing.body))).toMatchObject({ ok: false, error: { code: 'connection_not_found' } });
    });

    it('answers a direct Lambda invoke and a function URL event through the same logic', async () => {
      const handler = createToolStepHandler(
        async () => t.ctx,
        () => tools,
      );
      const c = await t.connect({}, token);
      const direct = await handler({
        toolId: 'github.test_get_issue',
        connectionId: c.id,
        input: { owner: 'octo', repo: 'hello', issue_number: 7 },
      });
      expect(direct).toEqual({ ok: true, data: { number: 7, title: 'Bug' } });
      expect(await handler({ toolId: 'github.nope', connectionId: c.id, input: {} })).toMatchObject({
        ok: false,
        error: { code: 'not_found' },
      });
      const urlEvent = {
        version: '2.0',
        rawPath: `/tools/github.test_get_issue/invoke`,
        rawQueryString: '',
        headers: { Authorization: 'Bearer platform-key-for-tests-0123456789abcdef' },
        requestContext: { http: { method: 'POST', path: '/tools/github.test_get_issue/invoke' } },
        body: Buffer.from(JSON.stringify({ connectionId: c.id, input: { owner: 'octo', repo: 'hello', issue_number: 7 } })).toString(
          'base64',
        ),
        isBase64Encoded: true,
      };
      const res = (await handler(urlEvent)) as { statusCode: number; body: string };
      expect(res.statusCode).toBe(200);
      expect(JSON.parse(res.body)).toEqual({ ok: true, data: { number: 7, title: 'Bug' } });
    });
  });
});
