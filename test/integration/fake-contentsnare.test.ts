import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startFakeContentSnare, type FakeContentSnare } from '../helpers/fake-contentsnare';

/**
 * The fake itself, driven with plain fetch, held to the partner API's published reference
 * (docs/tool-steps.md, "How they are tested"): if it agreed with a wrong client, the step
 * tests would prove nothing.
 */
let fake: FakeContentSnare;
let now = 0;
beforeEach(async () => {
  now = Date.parse('2026-11-23T10:00:00Z');
  fake = await startFakeContentSnare({ now: () => now, writes: 3, reads: 2 });
});
afterEach(async () => {
  await fake.close();
});

async function call(method: string, path: string, body?: unknown): Promise<{ status: number; headers: Headers; body: any }> {
  const res = await fetch(`${fake.url}/partner_api/v1/${path}`, {
    method,
    headers: {
      authorization: 'Bearer t-1',
      accept: 'application/json',
      ...(body === undefined ? {} : { 'content-type': 'application/json; charset=utf-8' }),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, headers: res.headers, body: text ? JSON.parse(text) : null };
}

describe('fake partner API', () => {
  it('POST /clients: 422 without full_name or email, errors as a list of strings; a known e-mail is already_invited', async () => {
    expect(await call('POST', 'clients', { email: 'ada@example.com' })).toMatchObject({
      status: 422,
      body: { errors: ["Full name can't be blank"] },
    });
    expect(await call('POST', 'clients', { full_name: 'Ada' })).toMatchObject({ status: 422, body: { errors: ["Email can't be blank"] } });
    const ok = await call('POST', 'clients', { full_name: 'Ada', email: 'ada@example.com', client_companies: [{ name: 'Engines' }] });
    expect(ok).toMatchObject({
      status: 200,
      body: { id: expect.stringMatching(/^acc_/), full_name: 'Ada', company_name: 'Engines', client_companies: [{ name: 'Engines' }] },
    });
    now += 60_000;
    expect(await call('POST', 'clients', { full_name: 'Ada', email: 'ADA@example.com' })).toMatchObject({
      status: 422,
      body: { errors: ['already_invited'] },
    });
    expect(fake.problems).toEqual([]);
  });

  it('POST /requests: a draft unless status published; due in, a date-time out; a new client needs client_full_name', async () => {
    const draft = await call('POST', 'requests', {
      name: 'R',
      client_email: 'new@example.com',
      client_full_name: 'New',
      request_template_name: 'Onboarding',
      due: '2026-12-31',
    });
    expect(draft).toMatchObject({
      status: 200,
      body: { status: 'draft', due: '2026-12-31T00:00:00.000Z', share_link: expect.any(String), client: { email: 'new@example.com' } },
    });
    const sent = await call('POST', 'requests', {
      name: 'R',
      client_email: 'new@example.com',
      request_template_id: 'tpl_1',
      status: 'published',
    });
    expect(sent.body.status).toBe('published');
    now += 60_000;
    expect(await call('POST', 'requests', { name: 'R', client_email: 'other@example.com', request_template_id: 'tpl_1' })).toMatchObject({
      status: 422,
      body: { errors: ['client_full_name is required for a new client'] },
    });
    expect(fake.problems).toEqual([]);
  });

  it('an undocumented body field, query parameter or path is refused and listed as a problem', async () => {
    expect(await call('POST', 'requests', { name: 'R', client_id: 'acc_1', request_template_id: 'tpl_1' })).toMatchObject({
      status: 422,
      body: { errors: expect.arrayContaining(['unknown field: client_id']) },
    });
    expect(await call('GET', 'clients?email=ada@example.com')).toMatchObject({ status: 422 });
    now += 60_000;
    expect((await call('GET', 'submissions')).status).toBe(404);
    expect(fake.problems).toEqual([
      'POST /requests: body field "client_id" is not in the reference',
      'GET /clients: query parameter "email" is not in the reference',
      'GET /submissions: not an endpoint of the partner API reference',
    ]);
    fake.problems.length = 0;
  });

  it('lists are {pagination, results} with limit (default 200) and offset', async () => {
    expect(await call('GET', 'request_templates')).toMatchObject({
      body: { pagination: { limit: 200, offset: 0, total_count: 2 }, results: [{ id: 'tpl_1' }, { id: 'tpl_2' }] },
    });
    expect(await call('GET', 'request_templates?limit=1&offset=1')).toMatchObject({
      body: { pagination: { limit: 1, offset: 1 }, results: [{ id: 'tpl_2' }] },
    });
  });

  it('beyond the limits, 429 with Retry-After in seconds; reads and writes count apart', async () => {
    expect((await call('GET', 'me')).body).toEqual({ full_name: 'Simulated Snare Admin' });
    await call('GET', 'folders');
    const throttled = await call('GET', 'folders');
    expect(throttled.status).toBe(429);
    expect(throttled.headers.get('retry-after')).toBe('10');
    expect((await call('POST', 'clients', { full_name: 'A', email: 'a@example.com' })).status).toBe(200);
    now += 10_000;
    expect((await call('GET', 'folders')).status).toBe(200);
  });
});
