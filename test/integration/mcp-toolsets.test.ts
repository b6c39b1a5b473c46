import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { routes as toolStepRoutes } from '../../functions/tool-step/routes';
import { allProviderTools } from '../../shared/wiring/provider-tools';
import { createRouter, type Router } from '../../shared/http/router';
import type { HttpResponse } from '../../shared/http/types';
import { stepIndex } from '../../shared/tools/catalog';
import { toolsets } from '../../shared/tools/toolsets';
import { stopTestDynamo } from '../helpers/dynamo';
import { type TestContext, testContext, testPlatformKey } from '../helpers/test-context';

/**
 * `/mcp` lists only the toolsets a client asks for, as GitHub's MCP server takes them: the
 * `X-MCP-Toolsets` header, the `/x/{toolset}` path, and here also `?toolsets=`.
 */
let t: TestContext;
let router: Router;
let connectionId: string;

beforeAll(async () => {
  t = await testContext({ PUBLIC_URL: 'http://127.0.0.1:3998' });
  connectionId = (await t.connect({ label: 'main' })).id;
  await t.connect({ provider: 'contentsnare', authMethod: 'oauth', accountLogin: 'ops@example.com' });
  router = createRouter(toolStepRoutes(t.ctx, allProviderTools()), { platformApiKey: async () => testPlatformKey });
});
afterAll(async () => {
  t.close();
  await stopTestDynamo();
});

async function rpc(path: string, body: unknown, headers: Record<string, string> = {}, query = ''): Promise<HttpResponse> {
  return router({
    method: 'POST',
    path,
    headers: {
      authorization: `Bearer ${testPlatformKey}`,
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      host: '127.0.0.1:3998',
      ...headers,
    },
    query: new URLSearchParams(query),
    body: Buffer.from(JSON.stringify(body)),
    clientAddress: '127.0.0.1',
  });
}

function answer(res: HttpResponse): Record<string, any> {
  const text = String(res.body ?? '');
  const data = [...text.matchAll(/^data: (.+)$/gm)].map((m) => m[1] ?? '');
  return JSON.parse(data.at(-1) ?? text);
}

const list = { jsonrpc: '2.0', id: 1, method: 'tools/list' };
const names = async (path: string, headers?: Record<string, string>, query?: string) =>
  (answer(await rpc(path, list, headers, query)).result.tools as { name: string }[]).map((x) => x.name).sort();

const toolsOf = (...sets: string[]) =>
  [...stepIndex(allProviderTools()).values()]
    .filter(({ step }) => sets.includes(step.toolset))
    .map(({ step }) => step.id.replace('.', '_'))
    .sort();

describe('the MCP toolset filter', () => {
  it('every step is in a known toolset', () => {
    for (const { step } of stepIndex(allProviderTools()).values()) expect(toolsets, step.id).toContain(step.toolset);
  });

  it('no filter lists every tool, as before', async () => {
    expect(await names('/mcp')).toEqual(toolsOf(...toolsets));
  });

  it('the X-MCP-Toolsets header lists only those toolsets (comma-separated, spaces ignored)', async () => {
    const listed = await names('/mcp', { 'x-mcp-toolsets': 'actions, discussions' });
    expect(listed).toEqual(toolsOf('actions', 'discussions'));
    expect(listed).toContain('github_get_job_logs');
    expect(listed).not.toContain('github_create_issue');
  });

  it('the /x/{toolset} path and ?toolsets= do the same, on one connection too', async () => {
    expect(await names('/mcp/x/discussions')).toEqual(['github_add_discussion_comment', 'github_get_discussion']);
    expect(await names(`/mcp/${connectionId}/x/actions`)).toEqual(toolsOf('actions'));
    expect(await names('/mcp', {}, 'toolsets=contentsnare')).toEqual(toolsOf('contentsnare'));
    expect(await names('/mcp', { 'x-mcp-toolsets': 'all' })).toEqual(toolsOf(...toolsets));
  });

  it('a tool outside the toolsets asked for cannot be called', async () => {
    const res = await rpc(
      '/mcp/x/discussions',
      { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'github_get_repository', arguments: { owner: 'o', repo: 'r' } } },
      {},
    );
    expect(answer(res).error).toMatchObject({ code: -32602, message: expect.stringContaining('Unknown tool') });
  });

  it('an unknown toolset is refused with 400, naming it', async () => {
    const res = await rpc('/mcp', list, { 'x-mcp-toolsets': 'issues,pulls' });
    expect(res.status).toBe(400);
    expect(answer(res).error).toMatchObject({ code: -32602, message: expect.stringContaining('"pulls"') });
  });
});
