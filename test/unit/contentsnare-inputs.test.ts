import { describe, expect, it } from 'vitest';
import { isCalendarDate } from '../../shared/providers/contentsnare/calendar-date';
import { backoffMs, retryAfterMs } from '../../shared/providers/contentsnare/retry-after';
import { contentSnareHttpError, upstreamFieldProblems, upstreamReasons } from '../../shared/providers/contentsnare/upstream-errors';
import { createClientBody, createRequestBody, requestOptionNames } from '../../shared/providers/contentsnare/request-bodies';
import { inputJsonSchema } from '../../shared/tools/catalog';
import { parseAnswer, createdRecord } from '../../shared/providers/contentsnare/schemas';
import { createClient } from '../../shared/providers/contentsnare/tool-steps/create-client';
import { createRequest } from '../../shared/providers/contentsnare/tool-steps/create-request';
import { apiCall } from '../../shared/providers/contentsnare/tool-steps/api-call';

describe('calendar dates', () => {
  it.each(['2026-02-28', '2028-02-29', '2000-02-29', '2026-12-31', '2026-01-01'])('accepts %s', (d) => {
    expect(isCalendarDate(d)).toBe(true);
  });
  it.each([
    '2026-02-30',
    '2026-02-29',
    '1900-02-29',
    '2026-13-01',
    '2026-00-10',
    '2026-04-31',
    '2026-1-01',
    '26-01-01',
    '2026-01-01T00:00:00Z',
    '',
  ])('refuses %s', (d) => {
    expect(isCalendarDate(d)).toBe(false);
  });
});

describe('Retry-After', () => {
  const now = Date.parse('2026-11-22T10:00:00Z');
  it('reads delay-seconds', () => {
    expect(retryAfterMs('7', now)).toBe(7000);
    expect(retryAfterMs(' 0 ', now)).toBe(0);
  });
  it('reads an HTTP date relative to now', () => {
    expect(retryAfterMs('Sun, 22 Nov 2026 10:00:12 GMT', now)).toBe(12_000);
    expect(retryAfterMs('Sun, 22 Nov 2026 09:00:00 GMT', now)).toBe(0);
  });
  it('ignores values it cannot read', () => {
    expect(retryAfterMs(null, now)).toBeUndefined();
    expect(retryAfterMs('-3', now)).toBeUndefined();
    expect(retryAfterMs('1.5', now)).toBeUndefined();
    expect(retryAfterMs('soon', now)).toBeUndefined();
  });
  it('backs off exponentially up to a cap', () => {
    expect([1, 2, 3, 4, 5, 6].map((n) => backoffMs(n, 10_000))).toEqual([1000, 2000, 4000, 8000, 10_000, 10_000]);
  });
});

describe('service errors', () => {
  it('maps a 422 to invalid_input naming the fields the service named', () => {
    const e = contentSnareHttpError(422, { errors: { email: ['is invalid'], name: "can't be blank" } });
    expect(e.code).toBe('invalid_input');
    expect(e.details?.fields).toEqual([
      { field: 'input.email', message: 'is invalid' },
      { field: 'input.name', message: "can't be blank" },
    ]);
    expect(e.message).toContain('input.email: is invalid');
  });
  it('reads a list of field errors too', () => {
    expect(upstreamFieldProblems({ errors: [{ field: 'due_date', message: 'is in the past' }] })).toEqual([
      { field: 'input.due_date', message: 'is in the past' },
    ]);
  });
  it.each([
    [401, 'reconnect_required'],
    [403, 'forbidden'],
    [404, 'not_found'],
    [409, 'conflict'],
    [400, 'invalid_input'],
    [500, 'upstream_error'],
    [503, 'upstream_error'],
    [302, 'upstream_error'],
  ])('maps %i to %s with the status in details', (status, code) => {
    const e = contentSnareHttpError(status, { message: 'nope' });
    expect(e.code).toBe(code);
    expect(e.details?.status).toBe(status);
  });
  it('never echoes a credential the service put in its body', () => {
    const e = contentSnareHttpError(400, { message: 'bad', access_token: 'sekrit-value-123', note: 'Bearer abcdefghijklmnop' });
    expect(JSON.stringify(e.toJSON())).not.toMatch(/sekrit-value-123|abcdefghijklmnop/);
  });
});

describe('answers', () => {
  it('requires the id of a created record', () => {
    expect(parseAnswer(createdRecord, { id: 'cl_1', name: 'A' }, 'x')).toEqual({ id: 'cl_1', name: 'A' });
    expect(() => parseAnswer(createdRecord, { name: 'A' }, 'create client')).toThrow(/create client did not have the expected shape/);
    expect(() => parseAnswer(createdRecord, 'ok', 'x')).toThrow();
  });
});

describe('step inputs', () => {
  const paths = (r: { error?: { issues: Array<{ path: PropertyKey[] }> } }) => r.error?.issues.map((i) => i.path.join('.'));
  it('create_client: name and a real e-mail required; the profile fields are known; anything else is refused', () => {
    expect(
      createClient.input.safeParse({
        name: 'Ada',
        email: 'ada@example.com',
        company_name: 'Engines',
        first_name: 'Ada',
        last_name: 'L',
        phone: '1',
        language_code: 'pt-BR',
      }).success,
    ).toBe(true);
    expect(paths(createClient.input.safeParse({ name: 'Ada', email: 'ada@' }))).toEqual(['email']);
    expect(paths(createClient.input.safeParse({ email: 'ada@example.com' }))).toEqual(['name']);
    const unknown = createClient.input.safeParse({ name: 'Ada', email: 'ada@example.com', vip: true });
    expect(unknown.error?.issues[0]).toMatchObject({ code: 'unrecognized_keys', keys: ['vip'] });
  });
  it('create_request: a client (id or e-mail) and a template (id or name), each exactly once; the option pairs at most once', () => {
    const base = { name: 'Docs', client_id: 'acc_1', template_id: 'tpl_1' };
    expect(
      createRequest.input.safeParse({
        ...base,
        due_date: '2026-03-01',
        folder_name: 'F',
        owner_email: 'o@example.com',
        communication_template_id: 'c',
        comments_enabled: true,
        send: false,
      }).success,
    ).toBe(true);
    expect(
      createRequest.input.safeParse({ name: 'Docs', client_email: 'a@example.com', client_name: 'A', template_name: 'T' }).success,
    ).toBe(true);
    expect(paths(createRequest.input.safeParse({ ...base, due_date: '2026-02-30' }))).toEqual(['due_date']);
    expect(paths(createRequest.input.safeParse({ name: 'Docs' }))).toEqual(['client_id', 'template_id']);
    expect(paths(createRequest.input.safeParse({ ...base, client_email: 'a@example.com', template_name: 'T' }))).toEqual([
      'client_email',
      'template_name',
    ]);
    expect(paths(createRequest.input.safeParse({ ...base, client_name: 'A' }))).toEqual(['client_name']);
    expect(paths(createRequest.input.safeParse({ ...base, owner_id: 'u', owner_email: 'o@example.com' }))).toEqual(['owner_email']);
    expect(createRequest.input.safeParse({ ...base, reminders: { every_days: 3 } }).error?.issues[0]).toMatchObject({
      code: 'unrecognized_keys',
      keys: ['reminders'],
    });
  });
  it("the catalog's JSON Schema says the pair rules and lists every input", () => {
    const schema = inputJsonSchema(createRequest.input) as {
      properties: Record<string, unknown>;
      required: string[];
      additionalProperties: boolean;
      allOf: unknown[];
    };
    expect(Object.keys(schema.properties).sort()).toEqual(
      [
        'name',
        'client_id',
        'client_email',
        'client_name',
        'client_phone',
        'company_name',
        'template_id',
        'template_name',
        'due_date',
        'folder_id',
        'folder_name',
        'owner_id',
        'owner_email',
        'communication_template_id',
        'communication_template_name',
        'comments_enabled',
        'passcode_enabled',
        'share_via_link_enabled',
        'send',
      ].sort(),
    );
    expect(schema.required).toEqual(['name']);
    expect(schema.additionalProperties).toBe(false);
    expect(schema.allOf).toContainEqual({ oneOf: [{ required: ['client_id'] }, { required: ['client_email'] }] });
    expect(schema.allOf).toContainEqual({ oneOf: [{ required: ['template_id'] }, { required: ['template_name'] }] });
    const client = inputJsonSchema(createClient.input) as {
      properties: Record<string, unknown>;
      required: string[];
      additionalProperties: boolean;
    };
    expect(Object.keys(client.properties)).toEqual(['name', 'email', 'company_name', 'first_name', 'last_name', 'phone', 'language_code']);
    expect(client.required).toEqual(['name', 'email']);
    expect(client.additionalProperties).toBe(false);
  });
  it('api_call: refuses headers, bodies on GET and endpoints that leave the API', () => {
    expect(apiCall.input.safeParse({ method: 'GET', endpoint: 'requests', query: { limit: 10 } }).success).toBe(true);
    expect(
      apiCall.input.safeParse({ method: 'GET', endpoint: 'clients', headers: { Authorization: 'Bearer x' } }).error?.issues[0]?.code,
    ).toBe('unrecognized_keys');
    expect(apiCall.input.safeParse({ method: 'GET', endpoint: 'clients', body: { a: 1 } }).error?.issues[0]?.path).toEqual(['body']);
    for (const endpoint of [
      'https://evil.example/x',
      '//evil.example/x',
      '/partner_api/v1/../../oauth/token',
      '%2e%2e/oauth/token',
      '\\\\evil',
    ]) {
      expect(apiCall.input.safeParse({ method: 'GET', endpoint }).success, endpoint).toBe(false);
    }
  });
});

describe('input -> wire (the partner API reference: clients and requests)', () => {
  it('create_client: name -> full_name, company_name -> client_companies [{name}], the rest as named', () => {
    expect(createClientBody({ name: 'Ada Lovelace', email: 'ada@example.com' })).toEqual({
      full_name: 'Ada Lovelace',
      email: 'ada@example.com',
    });
    expect(
      createClientBody({
        name: 'Ada Lovelace',
        email: 'ada@example.com',
        company_name: 'Engines',
        first_name: 'Ada',
        last_name: 'Lovelace',
        phone: '+1',
        language_code: 'fr',
      }),
    ).toEqual({
      full_name: 'Ada Lovelace',
      email: 'ada@example.com',
      first_name: 'Ada',
      last_name: 'Lovelace',
      phone: '+1',
      language_code: 'fr',
      client_companies: [{ name: 'Engines' }],
    });
  });
  it('create_request: client_email (+ client_full_name), request_template_id/_name, due, status published unless send: false', () => {
    expect(createRequestBody({ name: 'Docs', template_id: 'tpl_1' }, 'ada@example.com')).toEqual({
      name: 'Docs',
      client_email: 'ada@example.com',
      request_template_id: 'tpl_1',
      status: 'published',
    });
    expect(
      createRequestBody(
        { name: 'Docs', template_name: 'Onboarding', client_name: 'Ada', due_date: '2026-12-31', send: false },
        'ada@example.com',
      ),
    ).toEqual({
      name: 'Docs',
      client_email: 'ada@example.com',
      client_full_name: 'Ada',
      request_template_name: 'Onboarding',
      due: '2026-12-31',
      status: 'draft',
    });
    const options = {
      folder_id: 'fol_1',
      owner_email: 'o@example.com',
      communication_template_name: 'Standard',
      comments_enabled: true,
      passcode_enabled: false,
      share_via_link_enabled: true,
      client_phone: '+1',
      company_name: 'Engines',
    };
    expect(createRequestBody({ name: 'Docs', template_id: 't', ...options }, 'a@example.com')).toEqual({
      name: 'Docs',
      client_email: 'a@example.com',
      request_template_id: 't',
      ...options,
      status: 'published',
    });
  });
  it('create_request: every input of the schema is either translated or sent under its own (reference) name', () => {
    const known = new Set([
      'name',
      'client_id',
      'client_email',
      'client_name',
      'template_id',
      'template_name',
      'due_date',
      'send',
      ...requestOptionNames,
    ]);
    const schema = inputJsonSchema(createRequest.input) as { properties: Record<string, unknown> };
    expect(Object.keys(schema.properties).filter((k) => !known.has(k))).toEqual([]);
  });
});

describe("the service's error bodies ({errors: [strings]})", () => {
  it('puts the messages in the error message; already_invited is a conflict', () => {
    const e = contentSnareHttpError(422, { errors: ["Full name can't be blank", 'Email is invalid'] });
    expect(e.code).toBe('invalid_input');
    expect(e.message).toContain("Full name can't be blank; Email is invalid");
    expect(upstreamReasons({ errors: ['already_invited'] })).toEqual(['already_invited']);
    expect(contentSnareHttpError(422, { errors: ['already_invited'] }).code).toBe('conflict');
  });
});
