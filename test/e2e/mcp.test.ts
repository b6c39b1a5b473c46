import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { AjvJsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/ajv';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defaultAnswers } from '../helpers/github-step-samples';
import { startFakeContentSnare, type FakeContentSnare } from '../helpers/fake-contentsnare';
import { startFakeOAuthServer, type FakeOAuthServer } from '../helpers/fake-oauth-server';
import { freePort, startLocalProcess, type RunningLocal } from '../helpers/local-process';
import { startOpenApiFakeGitHub, type OpenApiFakeGitHub } from '../helpers/openapi-check';
import { httpApiCaller } from '../helpers/platform-api-caller';

const key = 'k'.repeat(40);
const appOrigin = 'https://app.example.test';

type TextContent = { type: 'text'; text: string };

/**
 * An MCP client built on the protocol's own SDK, given only a URL and a key, against
 * `npm start` with a code host and a collection service played by fakes: what it lists and
 * what its calls answer, compared with the HTTP invoke.
 */
describe('npm start: the tool steps over MCP (Streamable HTTP)', () => {
  let github: OpenApiFakeGitHub | undefined;
  let oauth: FakeOAuthServer;
  let snare: FakeContentSnare;
  let running: RunningLocal;
  const api = httpApiCaller(() => running.url, key);
  const ids = { github: '', github2: '', contentsnare: '' };

  async function mcpClient(path: string, bearer = key): Promise<Client> {
    const client = new Client({ name: 'mcp-e2e', version: '1.0.0' });
    const transport = new StreamableHTTPClientTransport(new URL(`${running.url}${path}`), {
      requestInit: { headers: { authorization: `Bearer ${bearer}` } },
    });
    await client.connect(transport);
    return client;
  }

  beforeAll(async () => {
    github = await startOpenApiFakeGitHub(defaultAnswers(() => github?.url ?? ''));
    oauth = await startFakeOAuthServer();
    snare = await startFakeContentSnare();
    const port = await freePort();
    running = await startLocalProcess({
      DATA_DIR: mkdtempSync(join(tmpdir(), 'mcp-e2e-')),
      PORT: String(port),
      PUBLIC_URL: `http://127.0.0.1:${port}`,
      PLATFORM_API_KEY: key,
      DISPATCH_SIGNING_SECRET: 's'.repeat(40),
      ALLOWED_RETURN_ORIGINS: appOrigin,
      GITHUB_API_URL: github.url,
      CONTENTSNARE_OAUTH_URL: oauth.url,
      CONTENTSNARE_API_URL: snare.url,
      CONTENTSNARE_CLIENT_ID: oauth.clientId,
      CONTENTSNARE_CLIENT_SECRET: oauth.clientSecret,
      POLL_INTERVAL_SECONDS: '3600',
    });
    for (const name of ['github', 'github2'] as const) {
      const made = await api('POST', '/connections', { provider: 'github', token: 'ghp_mcpEndToEndToken000000000000000000', label: name });
      expect(made.status).toBe(201);
      ids[name] = made.body.id as string;
    }
    // The collection service connects by OAuth only: the browser round trip, as a user makes it.
    const started = await api('POST', '/oauth/contentsnare/authorize', { returnTo: `${appOrigin}/done` });
    const start = await fetch(started.body.authorizeUrl as string, { redirect: 'manual' });
    const cookie = (start.headers.get('set-cookie') ?? '').split(';')[0] ?? '';
    const back = await fetch(await oauth.browse(start.headers.get('location') ?? ''), { redirect: 'manual', headers: { cookie } });
    ids.contentsnare = new URL(back.headers.get('location') ?? 'about:blank').searchParams.get('connectionId') ?? '';
    expect(ids.contentsnare).toMatch(/^conn_/);
  }, 90_000);
  afterAll(async () => {
    await running?.stop();
    await Promise.all([github?.close(), oauth?.close(), snare?.close()]);
  });

  it('lists every step of the connected providers with names the strictest clients take and valid JSON Schemas', async () => {
    const client = await mcpClient('/mcp');
    try {
      const { tools } = await client.listTools();
      const catalog = (await api('GET', '/tools')).body.tools as { id: string }[];
      expect(tools.map((t) => t.name).sort()).toEqual(catalog.map((t) => t.id.replaceAll('.', '_')).sort());
      const validator = new AjvJsonSchemaValidator();
      for (const tool of tools) {
        expect(tool.name).toMatch(/^[A-Za-z0-9_-]{1,64}$/);
        expect(() => validator.getValidator(tool.inputSchema as never)).not.toThrow();
        if (tool.outputSchema) expect(() => validator.getValidator(tool.outputSchema as never)).not.toThrow();
        expect(tool.annotations?.openWorldHint).toBe(true);
      }
      // Two code-host connections: the caller picks one by an argument the schema describes.
      const getRepo = tools.find((t) => t.name === 'github_get_repository');
      expect(getRepo?.inputSchema.required).toContain('connectionId');
      expect(((getRepo?.inputSchema.properties ?? {}) as Record<string, { enum?: string[] }>).connectionId?.enum?.sort()).toEqual(
        [ids.github, ids.github2].sort(),
      );
      expect(getRepo?.annotations).toMatchObject({ readOnlyHint: true, destructiveHint: false });
      // One collection-service connection: no argument needed.
      expect(tools.find((t) => t.name === 'contentsnare_create_client')?.inputSchema.required).not.toContain('connectionId');
    } finally {
      await client.close();
    }
  });

  it("lists the trigger catalog and each connection's subscriptions as resources", async () => {
    const client = await mcpClient(`/mcp/${ids.github}`);
    try {
      const { resources } = await client.listResources();
      expect(resources.map((r) => r.uri)).toEqual([
        'agent-integrations://triggers',
        `agent-integrations://connections/${ids.github}/subscriptions`,
      ]);
      const read = await client.readResource({ uri: 'agent-integrations://triggers' });
      const { triggers } = JSON.parse(String((read.contents[0] as { text?: string }).text)) as { triggers: { id: string }[] };
      expect(triggers.map((t) => t.id)).toContain('github.new_issue');
      const subs = await client.readResource({ uri: `agent-integrations://connections/${ids.github}/subscriptions` });
      expect(JSON.parse(String((subs.contents[0] as { text?: string }).text))).toEqual({ subscriptions: [] });
      await expect(client.readResource({ uri: `agent-integrations://connections/${ids.github2}/subscriptions` })).rejects.toThrow();
    } finally {
      await client.close();
    }
  });

  it('calls a code-host step with the same result as the HTTP invoke', async () => {
    const input = { owner: 'octo', repo: 'allowed' };
    const client = await mcpClient('/mcp');
    try {
      const result = await client.callTool({ name: 'github_get_repository', arguments: { ...input, connectionId: ids.github } });
      expect(result.isError).toBeFalsy();
      const viaHttp = await api('POST', '/tools/github.get_repository/invoke', { connectionId: ids.github, input });
      expect(viaHttp.body.ok).toBe(true);
      expect(JSON.parse((result.content as TextContent[])[0]?.text ?? '')).toEqual(viaHttp.body.data);
      if (result.structuredContent !== undefined) expect(result.structuredContent).toEqual(viaHttp.body.data);
    } finally {
      await client.close();
    }
  });

  it('calls a collection-service step on the connection OAuth made', async () => {
    const client = await mcpClient('/mcp');
    try {
      const result = await client.callTool({
        name: 'contentsnare_create_client',
        arguments: { name: 'Ada Lovelace', email: 'ada@example.com' },
      });
      expect(result.isError, JSON.stringify(result.content)).toBeFalsy();
      expect(snare.log.some((e) => e.method === 'POST' && e.path.endsWith('/clients'))).toBe(true);
    } finally {
      await client.close();
    }
  });

  it('answers a validation error as a tool result with isError and the stable code, not a protocol error', async () => {
    const client = await mcpClient(`/mcp/${ids.github}`);
    try {
      const result = await client.callTool({ name: 'github_create_issue', arguments: { owner: 'octo', repo: 'allowed' } });
      expect(result.isError).toBe(true);
      expect((result.content as TextContent[])[0]?.text).toMatch(/^invalid_input: .*input\.title/);
    } finally {
      await client.close();
    }
  });

  it('refuses a missing or wrong key with 401 and lists nothing', async () => {
    for (const headers of [{}, { authorization: 'Bearer not-the-key-0000000000000000000000000' }] as Record<string, string>[]) {
      const res = await fetch(`${running.url}/mcp`, {
        method: 'POST',
        headers: { ...headers, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} }),
      });
      expect(res.status).toBe(401);
      expect(await res.text()).not.toContain('github_');
    }
    await expect(mcpClient('/mcp', 'wrong-key-000000000000000000000000000000')).rejects.toThrow();
  });

  it("one connection's endpoint never shows another's tools or acts as another connection", async () => {
    const client = await mcpClient(`/mcp/${ids.github}`);
    try {
      const { tools } = await client.listTools();
      expect(tools.every((t) => t.name.startsWith('github_'))).toBe(true);
      expect(tools.find((t) => t.name === 'github_get_repository')?.inputSchema.required ?? []).not.toContain('connectionId');
      // Another connection's tool is unknown here: a protocol error (-32602), as the specification lists it.
      await expect(
        client.callTool({ name: 'contentsnare_create_client', arguments: { name: 'X', email: 'x@example.com' } }),
      ).rejects.toMatchObject({ code: -32602 });
    } finally {
      await client.close();
    }
  });

  it('a scoped key opens only its connections, over /mcp and HTTP alike, never management, and dies when revoked', async () => {
    const made = await api('POST', '/keys', { label: 'agent one', connections: [ids.github] });
    expect(made.status).toBe(201);
    const scoped = made.body.key as string;
    const listed = (await api('GET', '/keys')).body.keys as Record<string, unknown>[];
    expect(listed.map((k) => k.id)).toContain(made.body.id);
    expect(JSON.stringify(listed)).not.toContain(scoped.split('.')[1]);
    for (const k of listed) expect(Object.keys(k).sort()).toEqual(['connections', 'createdAt', 'id', 'label']);

    const client = await mcpClient('/mcp', scoped);
    try {
      const { tools } = await client.listTools();
      expect(tools.length).toBeGreaterThan(0);
      expect(tools.every((t) => t.name.startsWith('github_'))).toBe(true);
      expect(tools.find((t) => t.name === 'github_get_repository')?.inputSchema.required ?? []).not.toContain('connectionId');
    } finally {
      await client.close();
    }
    const asScoped = (method: string, path: string, body?: unknown) => api(method, path, body, `Bearer ${scoped}`);
    expect((await asScoped('POST', `/mcp/${ids.github2}`, { jsonrpc: '2.0', id: 1, method: 'tools/list' })).status).toBe(403);
    const otherInvoke = await asScoped('POST', '/tools/github.get_repository/invoke', {
      connectionId: ids.github2,
      input: { owner: 'octo', repo: 'allowed' },
    });
    expect(otherInvoke.status).toBe(403);
    expect(otherInvoke.body.error.code).toBe('forbidden');
    expect((await asScoped('GET', '/connections')).status).toBe(403);
    expect((await asScoped('POST', '/keys', { label: 'x', connections: [ids.github2] })).status).toBe(403);
    expect((await asScoped('GET', `/subscriptions?connectionId=${ids.github2}`)).status).toBe(403);

    expect((await api('DELETE', `/keys/${made.body.id}`)).status).toBe(200);
    expect((await asScoped('GET', '/tools')).status).toBe(401);
  });
});
