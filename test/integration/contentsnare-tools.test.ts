import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createContentsnareTools } from '../../shared/providers/contentsnare/tools';
import type { Connection } from '../../shared/domain/model';
import { invokeTool, type ToolResult } from '../../shared/tools/invoke';
import { keys } from '../../shared/store/table-design';
import { stopTestDynamo } from '../helpers/dynamo';
import { fakeSnareSeed, startFakeContentSnare, type FakeContentSnare } from '../helpers/fake-contentsnare';
import { startFakeHttp, type FakeServer } from '../helpers/fake-http';
import { toolTestContext, type ToolTestContext } from '../helpers/tool-context';

/**
 * The three collection-service steps through the invoke surface, against the fake service
 * written from the partner API reference: each step with its minimal input and with every
 * option, and what goes on the wire field by field.
 */
const token = 'cs-access-token-abcdef123456';
let fake: FakeContentSnare;
let evil: FakeServer;
let t: ToolTestContext;
let conn: Connection;
// Short backoffs keep the 5xx read-retry test fast; the limits themselves are the real ones.
const tools = [createContentsnareTools({ sleep: async () => undefined })];

beforeEach(async () => {
  fake = await startFakeContentSnare();
  evil = await startFakeHttp();
  t = await toolTestContext({ CONTENTSNARE_API_URL: fake.url });
  conn = await t.connect({ provider: 'contentsnare', authMethod: 'oauth', accountLogin: 'ops@example.com' }, token);
});
afterEach(async () => {
  await Promise.all([fake.close(), evil.close()]);
  expect(t.logLines.join('\n')).not.toContain(token);
  // Every request our steps sent used only what the partner API reference names.
  expect(fake.problems).toEqual([]);
});
afterAll(async () => {
  await stopTestDynamo();
});

const invoke = (toolId: string, input: unknown, connectionId = conn.id): Promise<ToolResult> =>
  invokeTool(t.ctx, { toolId, connectionId, input }, tools);

function data(r: ToolResult): Record<string, unknown> {
  if (!r.ok) throw new Error(`expected ok, got ${JSON.stringify(r.error)}`);
  return r.data as Record<string, unknown>;
}

describe('contentsnare.create_client', () => {
  it('minimal input: name and email go out as full_name and email, with the connection token; the answer is the client', async () => {
    const r = await invoke('contentsnare.create_client', { name: 'Ada Lovelace', email: 'ada@example.com' });
    expect(data(r)).toMatchObject({ id: 'acc_1', full_name: 'Ada Lovelace', email: 'ada@example.com', client_companies: [] });
    expect(fake.log).toHaveLength(1);
    const [req] = fake.log;
    expect(req).toMatchObject({ method: 'POST', path: '/partner_api/v1/clients', kind: 'write' });
    expect(req?.headers.authorization).toBe(`Bearer ${token}`);
    expect(req?.headers['content-type']).toBe('application/json');
    expect(req?.json).toEqual({ full_name: 'Ada Lovelace', email: 'ada@example.com' });
  });

  it('every option: company_name becomes client_companies [{name}]; the profile fields keep their names', async () => {
    const input = {
      name: 'Ada Lovelace',
      email: 'ada@example.com',
      company_name: 'Engines Ltd',
      first_name: 'Ada',
      last_name: 'Lovelace',
      phone: '+44 20 7946 0000',
      language_code: 'en-GB',
    };
    const r = await invoke('contentsnare.create_client', input);
    expect(fake.log[0]?.json).toEqual({
      full_name: 'Ada Lovelace',
      email: 'ada@example.com',
      first_name: 'Ada',
      last_name: 'Lovelace',
      phone: '+44 20 7946 0000',
      language_code: 'en-gb',
      client_companies: [{ name: 'Engines Ltd' }],
    });
    expect(data(r)).toMatchObject({
      company_name: 'Engines Ltd',
      client_companies: [{ name: 'Engines Ltd' }],
      language_code: 'en-gb',
      phone: '+44 20 7946 0000',
    });
  });

  it('an e-mail that is already a client: the service says already_invited, the step answers conflict', async () => {
    expect((await invoke('contentsnare.create_client', { name: 'Ada', email: 'ada@example.com' })).ok).toBe(true);
    const again = await invoke('contentsnare.create_client', { name: 'Ada L.', email: 'ADA@example.com' });
    expect(again).toMatchObject({ ok: false, error: { code: 'conflict', details: { status: 422 } } });
    expect(again.ok || again.error.message).toContain('already_invited');
  });

  it('refuses an answer without an id (never passes an unexpected shape on)', async () => {
    fake.script.push({ status: 200, body: { full_name: 'Ada', email: 'ada@example.com' } });
    const r = await invoke('contentsnare.create_client', { name: 'Ada', email: 'ada@example.com' });
    expect(r).toMatchObject({ ok: false, error: { code: 'upstream_error' } });
  });

  it("passes the service's validation errors on as invalid_input, its messages in the message", async () => {
    fake.script.push({ status: 422, body: { errors: ["Full name can't be blank"] } });
    const r = await invoke('contentsnare.create_client', { name: 'Ada', email: 'ada@example.com' });
    expect(r).toMatchObject({ ok: false, error: { code: 'invalid_input', details: { status: 422 } } });
    expect(r.ok || r.error.message).toContain("Full name can't be blank");
    fake.script.push({ status: 422, body: { errors: { email: ['has already been taken'] } } });
    const r2 = await invoke('contentsnare.create_client', { name: 'Ada', email: 'ada@example.com' });
    expect(r2).toMatchObject({
      ok: false,
      error: { code: 'invalid_input', details: { fields: [{ field: 'input.email', message: 'has already been taken' }] } },
    });
  });
});

describe('contentsnare.create_request', () => {
  const readGrants = async (kind: 'read' | 'write') =>
    ((await t.ctx.store.get(keys.rateBucket(`${conn.id}#${kind}`), { consistent: true }))?.grants as number[] | undefined)?.length ?? 0;

  it('minimal input with a new client by e-mail: sent (status published) with the share link; the service creates the client', async () => {
    const r = await invoke('contentsnare.create_request', {
      name: 'Onboarding',
      client_email: 'grace@example.com',
      client_name: 'Grace Hopper',
      template_name: 'Onboarding',
    });
    expect(fake.log.map((e) => `${e.method} ${e.path}`)).toEqual(['POST /partner_api/v1/requests']);
    expect(fake.log[0]?.json).toEqual({
      name: 'Onboarding',
      client_email: 'grace@example.com',
      client_full_name: 'Grace Hopper',
      request_template_name: 'Onboarding',
      status: 'published',
    });
    const out = data(r);
    expect(out).toMatchObject({
      id: 'req_2',
      status: 'published',
      sent: true,
      request_template_name: 'Onboarding',
      client: { id: 'acc_1', email: 'grace@example.com', full_name: 'Grace Hopper' },
    });
    expect(out.share_link).toMatch(/^https:\/\/app\.contentsnare\.com\/requests\/req_2\//);
    expect(fake.state.requests.get('req_2')?.status).toBe('published');
  });

  it('a client by id: its e-mail is read with GET /clients/{id} (one read for the limiter), then the request names it by client_email', async () => {
    const client = data(await invoke('contentsnare.create_client', { name: 'Ada', email: 'ada@example.com' }));
    const r = await invoke('contentsnare.create_request', {
      name: 'Docs',
      client_id: client.id,
      template_id: fakeSnareSeed.requestTemplates[0]?.id,
    });
    expect(data(r)).toMatchObject({ sent: true, status: 'published', client: { id: client.id, email: 'ada@example.com' } });
    expect(fake.log.map((e) => [e.method, e.path, e.kind])).toEqual([
      ['POST', '/partner_api/v1/clients', 'write'],
      ['GET', `/partner_api/v1/clients/${String(client.id)}`, 'read'],
      ['POST', '/partner_api/v1/requests', 'write'],
    ]);
    expect(fake.log[2]?.json).toEqual({ name: 'Docs', client_email: 'ada@example.com', request_template_id: 'tpl_1', status: 'published' });
    expect(await readGrants('read')).toBe(1);
    expect(await readGrants('write')).toBe(2);
  });

  it('every option, by name: due_date -> due, folder, owner, communications schedule, comments, passcode, link sharing, client phone and company', async () => {
    const input = {
      name: 'Year end',
      client_email: 'ada@example.com',
      client_name: 'Ada Lovelace',
      client_phone: '+44 20 7946 0000',
      company_name: 'Engines Ltd',
      template_name: 'Tax return documents',
      due_date: '2028-02-29',
      folder_name: 'Clients 2026',
      owner_email: 'olivia@agency.example',
      communication_template_name: 'Standard reminders',
      comments_enabled: true,
      passcode_enabled: true,
      share_via_link_enabled: false,
    };
    const out = data(await invoke('contentsnare.create_request', input));
    expect(fake.log[0]?.json).toEqual({
      name: 'Year end',
      client_email: 'ada@example.com',
      client_full_name: 'Ada Lovelace',
      client_phone: '+44 20 7946 0000',
      company_name: 'Engines Ltd',
      request_template_name: 'Tax return documents',
      due: '2028-02-29',
      folder_name: 'Clients 2026',
      owner_email: 'olivia@agency.example',
      communication_template_name: 'Standard reminders',
      comments_enabled: true,
      passcode_enabled: true,
      share_via_link_enabled: false,
      status: 'published',
    });
    expect(out).toMatchObject({
      sent: true,
      due: '2028-02-29T00:00:00.000Z',
      folder_name: 'Clients 2026',
      owner_name: 'Olivia Owner',
      communications_template_name: 'Standard reminders',
      comments_enabled: true,
      passcode_enabled: true,
      share_via_link_enabled: false,
      client: { phone: '+44 20 7946 0000', company_name: 'Engines Ltd' },
    });
  });

  it('every option, by id, and send: false leaves a draft (sent: false)', async () => {
    const { folders, teamMembers, communicationTemplates } = fakeSnareSeed;
    const input = {
      name: 'Draft',
      client_email: 'ada@example.com',
      client_name: 'Ada',
      template_id: 'tpl_2',
      folder_id: folders[0]?.id,
      owner_id: teamMembers[0]?.id,
      communication_template_id: communicationTemplates[0]?.id,
      send: false,
    };
    const out = data(await invoke('contentsnare.create_request', input));
    expect(fake.log[0]?.json).toEqual({
      name: 'Draft',
      client_email: 'ada@example.com',
      client_full_name: 'Ada',
      request_template_id: 'tpl_2',
      folder_id: 'fol_1',
      owner_id: 'usr_1',
      communication_template_id: 'com_1',
      status: 'draft',
    });
    expect(out).toMatchObject({
      status: 'draft',
      sent: false,
      folder_name: 'Clients 2026',
      owner_id: 'usr_1',
      request_template_name: 'Tax return documents',
    });
    expect(typeof out.share_link).toBe('string');
  });

  it('an unknown client_id answers not_found naming it, and no request is created', async () => {
    const r = await invoke('contentsnare.create_request', { name: 'Docs', client_id: 'acc_nope', template_id: 'tpl_1' });
    expect(r).toMatchObject({ ok: false, error: { code: 'not_found', details: { status: 404, fields: [{ field: 'input.client_id' }] } } });
    expect(r.ok || r.error.message).toContain('acc_nope');
    expect(fake.log.map((e) => e.method)).toEqual(['GET']);
  });

  it("a new client's e-mail without client_name: the service's refusal comes back as invalid_input with its words", async () => {
    const r = await invoke('contentsnare.create_request', { name: 'Docs', client_email: 'new@example.com', template_id: 'tpl_1' });
    expect(r).toMatchObject({ ok: false, error: { code: 'invalid_input', details: { status: 422 } } });
    expect(r.ok || r.error.message).toContain('client_full_name is required for a new client');
  });

  it('an existing client by e-mail needs no name, and a draft answer to a send is reported as not sent', async () => {
    await invoke('contentsnare.create_client', { name: 'Ada', email: 'ada@example.com' });
    const ok = data(await invoke('contentsnare.create_request', { name: 'Docs', client_email: 'ada@example.com', template_id: 'tpl_1' }));
    expect(ok).toMatchObject({ sent: true, client: { full_name: 'Ada' } });
    fake.script.push({ status: 200, body: { id: 'req_x', status: 'draft', share_link: null } });
    expect(
      data(await invoke('contentsnare.create_request', { name: 'Docs', client_email: 'ada@example.com', template_id: 'tpl_1' })),
    ).toMatchObject({ id: 'req_x', sent: false });
  });

  it.each(['scheduled', 'waiting', 'completed'])(
    'a request the service reports %s is answered with that status and not as sent (only published reaches the client)',
    async (status) => {
      fake.script.push({ status: 200, body: { id: 'req_s', status, share_link: null } });
      const r = data(
        await invoke('contentsnare.create_request', {
          name: 'Docs',
          client_email: 'new@example.com',
          client_name: 'New',
          template_id: 'tpl_1',
        }),
      );
      expect(r).toMatchObject({ id: 'req_s', status, sent: false });
    },
  );

  it('a request answer without a status is upstream_error: whether it was sent cannot be told', async () => {
    fake.script.push({ status: 200, body: { id: 'req_n', share_link: null } });
    const r = await invoke('contentsnare.create_request', {
      name: 'Docs',
      client_email: 'new@example.com',
      client_name: 'New',
      template_id: 'tpl_1',
    });
    expect(r).toMatchObject({ ok: false, error: { code: 'upstream_error', details: { problems: [expect.stringMatching(/^status: /)] } } });
  });
});

describe('the fake holds a wrong client to the reference', () => {
  it('the old wire shapes (name on /clients; client_id, template_id, due_date on /requests) are refused and listed as problems', async () => {
    const wrongClient = await invoke('contentsnare.api_call', {
      method: 'POST',
      endpoint: 'clients',
      body: { name: 'Ada', email: 'ada@example.com' },
    });
    expect(wrongClient).toMatchObject({ ok: false, error: { code: 'invalid_input', details: { status: 422 } } });
    const wrongRequest = await invoke('contentsnare.api_call', {
      method: 'POST',
      endpoint: 'requests',
      body: { client_id: 'acc_1', template_id: 'tpl_1', name: 'N', due_date: '2026-12-31' },
    });
    expect(wrongRequest.ok || wrongRequest.error.message).toContain('unknown field: client_id');
    expect(fake.problems).toEqual([
      'POST /clients: body field "name" is not in the reference',
      'POST /requests: body field "client_id" is not in the reference',
      'POST /requests: body field "template_id" is not in the reference',
      'POST /requests: body field "due_date" is not in the reference',
    ]);
    fake.problems.length = 0;
  });
});

describe('validation before anything is sent', () => {
  const request = { name: 'N', template_id: 'tpl_1' };
  it.each([
    ['contentsnare.create_client', { name: 'Ada', email: 'not-an-email' }, 'input.email', 'email'],
    ['contentsnare.create_client', { name: 'Ada', email: 'ada@example.com', vip: true }, 'input', '"vip"'],
    [
      'contentsnare.create_client',
      { name: 'Ada', email: 'ada@example.com', language_code: 'english' },
      'input.language_code',
      'language code',
    ],
    ['contentsnare.create_request', { ...request, client_id: 'acc_1', due_date: '2026-02-30' }, 'input.due_date', 'calendar date'],
    ['contentsnare.create_request', request, 'input.client_id', 'client_email'],
    ['contentsnare.create_request', { ...request, client_id: 'acc_1', client_email: 'a@example.com' }, 'input.client_email', 'not both'],
    ['contentsnare.create_request', { name: 'N', client_id: 'acc_1' }, 'input.template_id', 'template_name'],
    ['contentsnare.create_request', { ...request, client_id: 'acc_1', template_name: 'Onboarding' }, 'input.template_name', 'not both'],
    ['contentsnare.create_request', { ...request, client_id: 'acc_1', client_name: 'Ada' }, 'input.client_name', 'client_email'],
    [
      'contentsnare.create_request',
      { ...request, client_id: 'acc_1', folder_id: 'fol_1', folder_name: 'F' },
      'input.folder_name',
      'not both',
    ],
    [
      'contentsnare.create_request',
      { ...request, client_id: 'acc_1', owner_id: 'usr_1', owner_email: 'o@example.com' },
      'input.owner_email',
      'not both',
    ],
    [
      'contentsnare.create_request',
      { ...request, client_id: 'acc_1', communication_template_id: 'c', communication_template_name: 'C' },
      'input.communication_template_name',
      'not both',
    ],
    ['contentsnare.create_request', { ...request, client_id: '../me' }, 'input.client_id', 'id'],
    ['contentsnare.create_request', { ...request, client_id: 'acc_1', status: 'published' }, 'input', '"status"'],
    ['contentsnare.create_request', { ...request, client_id: 'acc_1', send: 'yes' }, 'input.send', 'boolean'],
    ['contentsnare.api_call', { method: 'GET', endpoint: 'clients', headers: { Authorization: 'Bearer mine' } }, 'input', 'headers'],
  ])('%s %j -> invalid_input naming %s, and the service received nothing', async (toolId, input, field, words) => {
    const r = await invoke(toolId, input);
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.error.code).toBe('invalid_input');
    expect(r.error.message).toContain(field);
    expect(r.error.message).toContain(words);
    expect((r.error.details?.fields as Array<{ field: string }> | undefined)?.map((f) => f.field)).toContain(field);
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

  it('recipes (docs/tool-steps.md): list requests with limit/offset, get a client, read a request status, list templates, find a client by e-mail, publish a draft', async () => {
    const client = data(await invoke('contentsnare.create_client', { name: 'Ada', email: 'ada@example.com' }));
    const request = data(
      await invoke('contentsnare.create_request', { client_id: client.id, template_id: 'tpl_1', name: 'Docs', send: false }),
    );
    const list = data(
      await invoke('contentsnare.api_call', { method: 'GET', endpoint: '/partner_api/v1/requests', query: { limit: 10, offset: 0 } }),
    );
    expect(list.data).toMatchObject({
      pagination: { limit: 10, offset: 0, total_count: 1 },
      results: [{ id: request.id, status: 'draft' }],
    });
    expect(fake.log.at(-1)?.query.toString()).toBe('limit=10&offset=0');
    const got = data(await invoke('contentsnare.api_call', { method: 'GET', endpoint: `/partner_api/v1/clients/${String(client.id)}` }));
    expect(got.data).toMatchObject({ id: client.id, email: 'ada@example.com', full_name: 'Ada' });
    const status = data(await invoke('contentsnare.api_call', { method: 'GET', endpoint: `requests/${String(request.id)}` }));
    expect(status.data).toMatchObject({ id: request.id, status: 'draft', completion_percentage: 0, fields_count: 0, pages: [] });
    const templates = data(
      await invoke('contentsnare.api_call', { method: 'GET', endpoint: 'request_templates', query: { limit: 20, offset: 0 } }),
    );
    expect(templates.data).toMatchObject({ results: [{ id: 'tpl_1', name: 'Onboarding' }, { id: 'tpl_2' }] });
    const found = data(
      await invoke('contentsnare.api_call', { method: 'GET', endpoint: 'clients', query: { q: 'ada@example.com', 'q_by[]': 'email' } }),
    );
    expect(found.data).toMatchObject({ results: [{ id: client.id }] });
    const published = data(
      await invoke('contentsnare.api_call', { method: 'PUT', endpoint: `requests/${String(request.id)}`, body: { status: 'published' } }),
    );
    expect(published.data).toMatchObject({ id: request.id, status: 'published' });
  });

  it('maps 404 to not_found and refuses a list answer that breaks its promise', async () => {
    expect(await invoke('contentsnare.api_call', { method: 'GET', endpoint: 'clients/nope' })).toMatchObject({
      ok: false,
      error: { code: 'not_found', details: { status: 404 } },
    });
    fake.script.push({ status: 200, body: { pagination: {}, results: 'many' } });
    expect(await invoke('contentsnare.api_call', { method: 'GET', endpoint: 'requests' })).toMatchObject({
      ok: false,
      error: { code: 'upstream_error' },
    });
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
      ['fresh-token-0123456789', 200],
    ]);
  });

  it('a 401 after the refresh answers reconnect_required', async () => {
    let refreshes = 0;
    t.ctx.tokens = {
      accessToken: async (_c, o) => {
        if (!o?.forceRefresh) return 'bad-token-0123456789';
        refreshes++;
        return 'also-bad-token-01234';
      },
    };
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
