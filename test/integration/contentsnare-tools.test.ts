import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createContentsnareTools } from '../../shared/contentsnare/tools';
import type { Connection } from '../../shared/domain/model';
import { invokeTool, type ToolResult } from '../../shared/tools/invoke';
import type { ProviderTools } from '../../shared/tools/tool-step';
import { stopTestDynamo } from '../helpers/dynamo';
import { startFakeContentSnare, type FakeContentSnare } from '../helpers/fake-contentsnare';
import { startFakeHttp, type FakeServer } from '../helpers/fake-http';
import { toolTestContext, type ToolTestContext } from '../helpers/tool-context';

/** The three collection-service steps through the invoke surface, against the fake service. */
const token = 'cs-access-token-abcdef123456';
let fake: FakeContentSnare;
let evil: FakeServer;
let t: ToolTestContext;
let conn: Connection;
// Short backoffs keep the 5xx read-retry test fast; the limits themselves are the real ones.
const tools = [createContentsnareTools({ sleep: async () => undefined }) as unknown as ProviderTools];

beforeEach(async () => {
  fake = await startFakeContentSnare();
  evil = await startFakeHttp();
  t = await toolTestContext({ CONTENTSNARE_API_URL: fake.url });
  conn = await t.connect({ provider: 'contentsnare', authMethod: 'oauth', accountLogin: 'ops@example.com' }, token);
});
afterEach(async () => {
  await Promise.all([fake.close(), evil.close()]);
  expect(t.logLines.join('\n')).not.toContain(token);
});
afterAll(async () => {
  await stopTestDynamo();
});

const invoke = (toolId: string, input: unknown, connectionId = conn.id): Promise<ToolResult> => invokeTool(t.ctx, { toolId, connectionId, input }, tools);

function data(r: ToolResult): Record<string, unknown> {
  if (!r.ok) throw new Error(`expected ok, got ${JSON.stringify(r.error)}`);
  return r.data as Record<string, unknown>;
}

describe('contentsnare.create_client', () => {
  it('creates the client with the connection token applied and profile details passed through', async () => {
    const r = await invoke('contentsnare.create_client', { name: 'Ada Lovelace', email: 'ada@example.com', company_name: 'Engines', vip: true });
    expect(data(r)).toMatchObject({ id: 'cl_1', name: 'Ada Lovelace', email: 'ada@example.com', company_name: 'Engines', vip: true });
    expect(fake.log).toHaveLength(1);
    const [req] = fake.log;
    expect(req).toMatchObject({ method: 'POST', path: '/partner_api/v1/clients' });
    expect(req?.headers.authorization).toBe(`Bearer ${token}`);
    expect(req?.headers['content-type']).toBe('application/json');
    expect(req?.json).toEqual({ name: 'Ada Lovelace', email: 'ada@example.com', company_name: 'Engines', vip: true });
  });

  it('refuses an answer without an id (never passes an unexpected shape on)', async () => {
    fake.script.push({ status: 201, body: { name: 'Ada' } });
    const r = await invoke('contentsnare.create_client', { name: 'Ada', email: 'ada@example.com' });
    expect(r).toMatchObject({ ok: false, error: { code: 'upstream_error' } });
  });

  it("passes the service's validation errors on as invalid_input naming the fields", async () => {
    fake.script.push({ status: 422, body: { errors: { email: ['has already been taken'] } } });
    const r = await invoke('contentsnare.create_client', { name: 'Ada', email: 'ada@example.com' });
    expect(r).toMatchObject({ ok: false, error: { code: 'invalid_input', details: { status: 422, fields: [{ field: 'input.email', message: 'has already been taken' }] } } });
  });
});

describe('contentsnare.create_request', () => {
  it('creates a request for a client with a due date and customization options', async () => {
    const client = data(await invoke('contentsnare.create_client', { name: 'Ada', email: 'ada@example.com' }));
    const r = await invoke('contentsnare.create_request', { client_id: client.id, template_id: 'tpl_9', name: 'Onboarding', due_date: '2028-02-29', send_reminders: false });
    expect(data(r)).toMatchObject({ id: 'rq_2', status: 'sent', client_id: 'cl_1', due_date: '2028-02-29', send_reminders: false });
    expect(fake.log.at(-1)).toMatchObject({ method: 'POST', path: '/partner_api/v1/requests' });
  });
});

describe('validation before anything is sent', () => {
  it.each([
    ['contentsnare.create_client', { name: 'Ada', email: 'not-an-email' }, 'input.email'],
    ['contentsnare.create_request', { client_id: 'cl_1', template_id: 't', name: 'N', due_date: '2026-02-30' }, 'input.due_date'],
    ['contentsnare.create_request', { template_id: 't', name: 'N' }, 'input.client_id'],
    ['contentsnare.api_call', { method: 'GET', endpoint: 'clients', headers: { Authorization: 'Bearer mine' } }, 'input'],
  ])('%s %j -> invalid_input naming %s, and the service received nothing', async (toolId, input, field) => {
    const r = await invoke(toolId, input);
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.error.code).toBe('invalid_input');
    expect(r.error.message).toContain(field);
    expect((r.error.details?.fields as Array<{ field: string }>).map((f) => f.field)).toContain(field);
    expect(fake.log).toEqual([]);
  });
});

describe('contentsnare.api_call', () => {
  it('accepts the endpoint as `clients`, `/clients` or `/partner_api/v1/clients`', async () => {
    for (const endpoint of ['clients', '/clients', '/partner_api/v1/clients']) {
      const r = await invoke('contentsnare.api_call', { method: 'GET', endpoint });
      expect(data(r)).toMatchObject({ status: 200, data: { results: [] } });
    }
    expect(fake.log.map((e) => e.path)).toEqual(Array(3).fill('/partner_api/v1/clients'));
    expect(fake.log.every((e) => e.headers.authorization === `Bearer ${token}`)).toBe(true);
  });

  it('recipes: list requests with limit/offset, get a client, read a request status', async () => {
    const client = data(await invoke('contentsnare.create_client', { name: 'Ada', email: 'ada@example.com' }));
    const request = data(await invoke('contentsnare.create_request', { client_id: client.id, template_id: 't', name: 'Docs' }));
    const list = data(await invoke('contentsnare.api_call', { method: 'GET', endpoint: '/partner_api/v1/requests', query: { limit: 10, offset: 0 } }));
    expect(list.data).toMatchObject({ pagination: { limit: 10, offset: 0 }, results: [{ id: request.id }] });
    expect(fake.log.at(-1)?.query.toString()).toBe('limit=10&offset=0');
    const got = data(await invoke('contentsnare.api_call', { method: 'GET', endpoint: `/partner_api/v1/clients/${String(client.id)}` }));
    expect(got.data).toMatchObject({ id: client.id, email: 'ada@example.com' });
    const status = data(await invoke('contentsnare.api_call', { method: 'GET', endpoint: `requests/${String(request.id)}` }));
    expect(status.data).toMatchObject({ id: request.id, status: 'sent' });
  });

  it('maps 404 to not_found and refuses a list answer that breaks its promise', async () => {
    expect(await invoke('contentsnare.api_call', { method: 'GET', endpoint: 'clients/nope' })).toMatchObject({ ok: false, error: { code: 'not_found', details: { status: 404 } } });
    fake.script.push({ status: 200, body: { pagination: {}, results: 'many' } });
    expect(await invoke('contentsnare.api_call', { method: 'GET', endpoint: 'requests' })).toMatchObject({ ok: false, error: { code: 'upstream_error' } });
  });

  it('never leaves the configured origin and API path', async () => {
    const escapes = [
      `${evil.url}/partner_api/v1/clients`,
      `//127.0.0.1:${evil.port}/x`,
      '/partner_api/v1/../../oauth/token',
      '../oauth/token',
      '%2e%2e/oauth/token',
      '/\\evil.example',
      '@evil.example/x',
      'http:evil.example',
    ];
    for (const endpoint of escapes) {
      const r = await invoke('contentsnare.api_call', { method: 'GET', endpoint });
      expect(r, endpoint).toMatchObject({ ok: false, error: { code: 'invalid_input' } });
    }
    // A redirect elsewhere is not followed (the token would go with it).
    fake.script.push({ status: 302, headers: { location: `${evil.url}/steal` } });
    const r = await invoke('contentsnare.api_call', { method: 'GET', endpoint: 'clients' });
    expect(r).toMatchObject({ ok: false, error: { code: 'upstream_error', details: { status: 302 } } });
    expect(evil.requests).toEqual([]);
    expect(fake.log).toHaveLength(1);
  });

  it('describes the request on a dry run and sends nothing', async () => {
    const r = await invoke('contentsnare.api_call', { method: 'DELETE', endpoint: 'clients/cl_1', dryRun: true });
    expect(data(r)).toEqual({ dryRun: true, request: { method: 'DELETE', url: `${fake.url}/partner_api/v1/clients/cl_1`, body: null } });
    expect(fake.log).toEqual([]);
  });
});

describe('service failures', () => {
  it('a 401 refreshes the token once and retries with the new one', async () => {
    const calls: Array<boolean | undefined> = [];
    t.ctx.tokens = {
      accessToken: async (_c, options) => {
        calls.push(options?.forceRefresh);
        return options?.forceRefresh ? 'fresh-token-0123456789' : 'stale-token-0123456789';
      },
    };
    fake.tokens.add('fresh-token-0123456789');
    const r = await invoke('contentsnare.create_client', { name: 'Ada', email: 'ada@example.com' });
    expect(r.ok).toBe(true);
    expect(calls).toEqual([undefined, true]);
    expect(fake.log.map((e) => [e.token, e.status])).toEqual([
      ['stale-token-0123456789', 401],
      ['fresh-token-0123456789', 201],
    ]);
  });

  it('a 401 after the refresh answers reconnect_required', async () => {
    let refreshes = 0;
    t.ctx.tokens = { accessToken: async (_c, o) => (o?.forceRefresh ? (refreshes++, 'also-bad-token-01234') : 'bad-token-0123456789') };
    fake.tokens.add('some-other-token');
    const r = await invoke('contentsnare.api_call', { method: 'GET', endpoint: 'clients' });
    expect(r).toMatchObject({ ok: false, error: { code: 'reconnect_required' } });
    expect(refreshes).toBe(1);
    expect(fake.log).toHaveLength(2);
  });

  it('a 5xx on a write is not retried (it may have happened); a 5xx on a read is', async () => {
    fake.script.push({ status: 500, body: { error: 'boom' } });
    const w = await invoke('contentsnare.create_client', { name: 'Ada', email: 'ada@example.com' });
    expect(w).toMatchObject({ ok: false, error: { code: 'upstream_error', details: { status: 500 } } });
    expect(fake.log).toHaveLength(1);
    fake.script.push({ status: 503 });
    const r = await invoke('contentsnare.api_call', { method: 'GET', endpoint: 'requests' });
    expect(data(r)).toMatchObject({ status: 200 });
    expect(fake.log.map((e) => e.status)).toEqual([500, 503, 200]);
  });
});
