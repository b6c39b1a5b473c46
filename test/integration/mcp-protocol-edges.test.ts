import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ErrorCode, McpError } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { routes as toolStepRoutes } from '../../functions/tool-step/routes';
import { allProviderTools } from '../../shared/wiring/provider-tools';
import type { Connection } from '../../shared/domain/model';
import { maxAnswerBytes } from '../../shared/http/json-shape';
import { createRouter, type Router } from '../../shared/http/router';
import type { HttpResponse } from '../../shared/http/types';
import { stopTestDynamo } from '../helpers/dynamo';
import { type TestContext, testContext, testPlatformKey } from '../helpers/test-context';

/**
 * The MCP endpoint against the protocol's transport and error rules (2025-06-18), through the
 * SDK's own client where a client is involved: what a client sends wrong is a JSON-RPC error
 * with the code the specification names, and what a browser or a batch may do is bounded.
 */
let t: TestContext;
let router: Router;
let github: Connection;
const publicUrl = 'http://127.0.0.1:3999';

beforeAll(async () => {
  t = await testContext({ PUBLIC_URL: publicUrl, ALLOWED_RETURN_ORIGINS: 'https://app.example.test' });
  github = await t.connect({ label: 'main' });
  router = createRouter(toolStepRoutes(t.ctx, allProviderTools()), { platformApiKey: async () => testPlatformKey });
});
afterAll(async () => {
  t.close();
  await stopTestDynamo();
});

const mcpHeaders = {
  authorization: `Bearer ${testPlatformKey}`,
  'content-type': 'application/json',
  accept: 'application/json, text/event-stream',
};

async function send(
  method: string,
  path: string,
  body: unknown,
  headers: Record<string, string> = {},
  clientAddress = '127.0.0.1',
): Promise<HttpResponse> {
  return router({
    method,
    path,
    headers: { ...mcpHeaders, host: '127.0.0.1:3999', ...headers },
    query: new URLSearchParams(),
    body: Buffer.from(body === undefined ? '' : typeof body === 'string' ? body : JSON.stringify(body)),
    clientAddress,
  });
}

/** The SDK client over the router itself (no socket): every request as the client makes it. */
async function sdkClient(path = '/mcp', errors: unknown[] = []): Promise<Client> {
  const client = new Client({ name: 'edges', version: '1.0.0' });
  client.onerror = (e) => errors.push(e);
  const transport = new StreamableHTTPClientTransport(new URL(`${publicUrl}${path}`), {
    requestInit: { headers: { authorization: `Bearer ${testPlatformKey}` } },
    fetch: async (input, init) => {
      const url = new URL(String(input instanceof Request ? input.url : input));
      const headers: Record<string, string> = {};
      new Headers(init?.headers).forEach((v, k) => {
        headers[k] = v;
      });
      const res = await router({
        method: init?.method ?? 'GET',
        path: url.pathname,
        headers: { host: url.host, ...headers },
        query: url.searchParams,
        body: Buffer.from(init?.body === undefined || init.body === null ? '' : String(init.body)),
        clientAddress: '127.0.0.1',
      });
      return new Response(res.status === 202 || res.status === 204 ? null : (res.body ?? null), {
        status: res.status,
        headers: res.headers,
      });
    },
  });
  await client.connect(transport);
  return client;
}

/** The JSON-RPC answer of a response, whole JSON or the last message of an event stream. */
function rpcAnswer(res: HttpResponse): Record<string, any> {
  const text = String(res.body ?? '');
  const data = [...text.matchAll(/^data: (.+)$/gm)].map((m) => m[1] ?? '');
  return JSON.parse(data.at(-1) ?? text);
}

async function protocolError(p: Promise<unknown>): Promise<McpError> {
  const e = await p.then(
    () => undefined,
    (err: unknown) => err,
  );
  expect(e).toBeInstanceOf(McpError);
  return e as McpError;
}

describe('MCP transport: methods a stateless server has not', () => {
  for (const method of ['GET', 'DELETE'])
    for (const path of ['/mcp', '/mcp/conn_x'])
      it(`${method} ${path} answers 405 with Allow: POST and a JSON-RPC error`, async () => {
        const res = await send(method, path, undefined);
        expect(res.status).toBe(405);
        expect(res.headers?.allow).toBe('POST');
        expect(JSON.parse(String(res.body))).toMatchObject({ jsonrpc: '2.0', error: { code: -32000 } });
      });

  it('the SDK client connects and lists without an SSE error (its GET is told 405, not 404)', async () => {
    const errors: unknown[] = [];
    const client = await sdkClient('/mcp', errors);
    try {
      expect((await client.listTools()).tools.length).toBeGreaterThan(0);
      expect(await client.ping()).toEqual({});
    } finally {
      await client.close();
    }
    expect(errors.map(String)).toEqual([]);
  });
});

describe('MCP errors: the codes the specification names', () => {
  it('an unknown tool is a protocol error, -32602', async () => {
    const client = await sdkClient();
    try {
      const e = await protocolError(client.callTool({ name: 'no_such_tool', arguments: {} }));
      expect(e.code).toBe(ErrorCode.InvalidParams);
      expect(e.message).toMatch(/Unknown tool: no_such_tool/);
    } finally {
      await client.close();
    }
  });

  it("a tool of another provider on a connection's own endpoint is unknown there too", async () => {
    const client = await sdkClient(`/mcp/${github.id}`);
    try {
      const e = await protocolError(
        client.callTool({ name: 'contentsnare_create_client', arguments: { name: 'X', email: 'x@example.com' } }),
      );
      expect(e.code).toBe(ErrorCode.InvalidParams);
    } finally {
      await client.close();
    }
  });

  it('params that do not fit the method are -32602, not -32603', async () => {
    for (const [method, params] of [
      ['tools/call', { arguments: {} }],
      ['resources/read', {}],
      ['tools/call', { name: 42 }],
    ] as const) {
      const res = await send('POST', '/mcp', { jsonrpc: '2.0', id: 9, method, params });
      const body = rpcAnswer(res);
      expect(body.error?.code, `${method} ${JSON.stringify(params)}: ${String(res.body)}`).toBe(-32602);
      expect(body.id).toBe(9);
    }
  });

  it('an unknown resource is -32002 with its uri', async () => {
    const client = await sdkClient();
    try {
      for (const uri of ['agent-integrations://connections/conn_nope/subscriptions', 'test://static-text']) {
        const e = await protocolError(client.readResource({ uri }));
        expect(e.code).toBe(-32002);
        expect(e.data).toEqual({ uri });
      }
    } finally {
      await client.close();
    }
  });

  it('a tools/list or resources/list cursor this server never gave is -32602', async () => {
    const client = await sdkClient();
    try {
      expect((await protocolError(client.listTools({ cursor: 'bogus' }))).code).toBe(ErrorCode.InvalidParams);
      expect((await protocolError(client.listResources({ cursor: 'bogus' }))).code).toBe(ErrorCode.InvalidParams);
    } finally {
      await client.close();
    }
  });

  it('a tool that fails is still a result with isError, the stable code first, for the model to read', async () => {
    const client = await sdkClient(`/mcp/${github.id}`);
    try {
      const result = await client.callTool({ name: 'github_create_issue', arguments: { owner: 'octo', repo: 'r' } });
      expect(result.isError).toBe(true);
      expect((result.content as Array<{ text: string }>)[0]?.text).toMatch(/^invalid_input: /);
    } finally {
      await client.close();
    }
  });
});

describe('MCP request shapes: one message per request, bounded', () => {
  it('refuses a JSON-RPC batch with 400 and -32600, whatever it holds', async () => {
    const batch = Array.from({ length: 100 }, (_, i) => ({ jsonrpc: '2.0', id: i, method: 'tools/list' }));
    const res = await send('POST', '/mcp', `  \n${JSON.stringify(batch)}`);
    expect(res.status).toBe(400);
    expect(Buffer.byteLength(res.body ?? '')).toBeLessThan(1024);
    expect(JSON.parse(String(res.body))).toMatchObject({ jsonrpc: '2.0', id: null, error: { code: -32600 } });
  });

  it('still answers one message', async () => {
    const res = await send('POST', '/mcp', { jsonrpc: '2.0', id: 1, method: 'tools/list' });
    expect(res.status).toBe(200);
    expect(Buffer.byteLength(res.body ?? '')).toBeLessThan(maxAnswerBytes);
  });
});

describe('MCP origin: DNS rebinding refused', () => {
  const initialize = {
    jsonrpc: '2.0',
    id: 1,
    method: 'initialize',
    params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'o', version: '1' } },
  };

  it("another site's Origin is 403 forbidden, on every method", async () => {
    for (const method of ['POST', 'GET', 'DELETE']) {
      const res = await send(method, '/mcp', method === 'POST' ? initialize : undefined, { origin: 'https://evil.example.com' });
      expect(res.status, method).toBe(403);
      expect(JSON.parse(String(res.body)).error.code).toBe('forbidden');
    }
    const spoofed = await send('POST', '/mcp', initialize, { origin: 'null' });
    expect(spoofed.status).toBe(403);
  });

  it('over loopback, a Host that is not a loopback name (a rebound name) is 403, even without Origin', async () => {
    const res = await send('POST', '/mcp', initialize, { host: 'evil.example.com:3999' });
    expect(res.status).toBe(403);
    const withOrigin = await send('POST', '/mcp', initialize, { host: 'evil.example.com', origin: 'http://evil.example.com' });
    expect(withOrigin.status).toBe(403);
  });

  it("accepts no Origin (a program), the product's own, the platform's, and loopback origins over loopback", async () => {
    for (const headers of [
      {},
      { origin: publicUrl },
      { origin: 'https://app.example.test' },
      { origin: 'http://localhost:6274', host: 'localhost:3999' },
      { origin: 'http://[::1]:3999', host: '[::1]:3999' },
    ] as Record<string, string>[]) {
      const res = await send('POST', '/mcp', initialize, headers);
      expect(res.status, JSON.stringify(headers)).toBe(200);
    }
  });

  it('from a remote peer (AWS), the Host is not checked but a foreign Origin still is, and a loopback Origin is foreign', async () => {
    expect((await send('POST', '/mcp', initialize, { host: 'api.example.com' }, '203.0.113.9')).status).toBe(200);
    expect(
      (await send('POST', '/mcp', initialize, { host: 'api.example.com', origin: 'https://evil.example.com' }, '203.0.113.9')).status,
    ).toBe(403);
    expect(
      (await send('POST', '/mcp', initialize, { host: 'api.example.com', origin: 'http://localhost:1234' }, '203.0.113.9')).status,
    ).toBe(403);
  });
});

describe('deep bodies on the tool routes: 400, never a 500 with a stack in the log', () => {
  const deep = (levels: number) => `${'{"a":'.repeat(levels)}1${'}'.repeat(levels)}`;

  it('a tool invoke with a 20,000-level input, even as a dry run', async () => {
    const body = `{"connectionId":"${github.id}","dryRun":true,"input":{"method":"POST","path":"/user/repos","body":${deep(20_000)}}}`;
    const res = await send('POST', '/tools/github.api_call/invoke', body);
    expect(res.status).toBe(400);
    expect(JSON.parse(String(res.body)).error.code).toBe('nesting_too_deep');
    expect(t.logLines.filter((l) => l.includes('"ERROR"') || l.includes('"level":"error"'))).toEqual([]);
  });

  it('an MCP tools/call with a 20,000-level argument', async () => {
    const body = `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"github_api_call","arguments":${deep(20_000)}}}`;
    const res = await send('POST', '/mcp', body);
    expect(res.status).toBe(400);
    expect(JSON.parse(String(res.body)).error.code).toBe('nesting_too_deep');
  });
});
