import { describe, expect, it } from 'vitest';
import { isCalendarDate } from '../../shared/contentsnare/calendar-date';
import { backoffMs, retryAfterMs } from '../../shared/contentsnare/retry-after';
import { contentSnareHttpError, upstreamFieldProblems } from '../../shared/contentsnare/upstream-errors';
import { parseAnswer, createdRecord } from '../../shared/contentsnare/schemas';
import { createClient } from '../../shared/contentsnare/tool-steps/create-client';
import { createRequest } from '../../shared/contentsnare/tool-steps/create-request';
import { apiCall } from '../../shared/contentsnare/tool-steps/api-call';

describe('calendar dates', () => {
  it.each(['2026-02-28', '2028-02-29', '2000-02-29', '2026-12-31', '2026-01-01'])('accepts %s', (d) => {
    expect(isCalendarDate(d)).toBe(true);
  });
  it.each(['2026-02-30', '2026-02-29', '1900-02-29', '2026-13-01', '2026-00-10', '2026-04-31', '2026-1-01', '26-01-01', '2026-01-01T00:00:00Z', ''])(
    'refuses %s',
    (d) => {
      expect(isCalendarDate(d)).toBe(false);
    },
  );
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
    expect(upstreamFieldProblems({ errors: [{ field: 'due_date', message: 'is in the past' }] })).toEqual([{ field: 'input.due_date', message: 'is in the past' }]);
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
  it('create_client: name and a real e-mail required; other scalar profile details pass through', () => {
    expect(createClient.input.safeParse({ name: 'Ada', email: 'ada@example.com', company_name: 'Engines', vip: true }).success).toBe(true);
    const bad = createClient.input.safeParse({ name: 'Ada', email: 'ada@' });
    expect(bad.error?.issues.map((i) => i.path.join('.'))).toEqual(['email']);
    expect(createClient.input.safeParse({ email: 'ada@example.com' }).error?.issues.map((i) => i.path.join('.'))).toEqual(['name']);
    expect(createClient.input.safeParse({ name: 'Ada', email: 'ada@example.com', nested: { x: 1 } }).success).toBe(false);
  });
  it('create_request: client_id, template_id and name required; due_date a real date; options pass through', () => {
    expect(createRequest.input.safeParse({ client_id: 'c', template_id: 't', name: 'Docs', due_date: '2026-03-01', reminders: { every_days: 3 } }).success).toBe(true);
    expect(createRequest.input.safeParse({ client_id: 'c', template_id: 't', name: 'Docs', due_date: '2026-02-30' }).error?.issues.map((i) => i.path.join('.'))).toEqual(['due_date']);
    expect(createRequest.input.safeParse({ template_id: 't', name: 'Docs' }).error?.issues.map((i) => i.path.join('.'))).toEqual(['client_id']);
  });
  it('api_call: refuses headers, bodies on GET and endpoints that leave the API', () => {
    expect(apiCall.input.safeParse({ method: 'GET', endpoint: 'requests', query: { limit: 10 } }).success).toBe(true);
    expect(apiCall.input.safeParse({ method: 'GET', endpoint: 'clients', headers: { Authorization: 'Bearer x' } }).error?.issues[0]?.code).toBe('unrecognized_keys');
    expect(apiCall.input.safeParse({ method: 'GET', endpoint: 'clients', body: { a: 1 } }).error?.issues[0]?.path).toEqual(['body']);
    for (const endpoint of ['https://evil.example/x', '//evil.example/x', '/partner_api/v1/../../oauth/token', '%2e%2e/oauth/token', '\\\\evil']) {
      expect(apiCall.input.safeParse({ method: 'GET', endpoint }).success, endpoint).toBe(false);
    }
  });
});
