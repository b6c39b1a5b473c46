import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createContentsnareTools } from '../../shared/providers/contentsnare/tools';
import type { Connection } from '../../shared/domain/model';
import { invokeTool, type ToolResult } from '../../shared/tools/invoke';
import { stopTestDynamo } from '../helpers/dynamo';
import { startFakeContentSnare, type FakeContentSnare } from '../helpers/fake-contentsnare';
import { toolTestContext, type ToolTestContext } from '../helpers/tool-context';

/**
 * The collection service's read steps against the fake written from the partner API
 * reference: a request with its status and fields, lists of requests and clients, and
 * nothing on the wire the reference does not name.
 */
const token = 'cs-access-token-reads-123456';
let fake: FakeContentSnare;
let t: ToolTestContext;
let conn: Connection;
const tools = [createContentsnareTools({ sleep: async () => undefined })];

beforeEach(async () => {
  fake = await startFakeContentSnare();
  t = await toolTestContext({ CONTENTSNARE_API_URL: fake.url });
  conn = await t.connect({ provider: 'contentsnare', authMethod: 'oauth', accountLogin: 'ops@example.com' }, token);
});
afterEach(async () => {
  await fake.close();
  expect(fake.problems).toEqual([]);
});
afterAll(async () => {
  await stopTestDynamo();
});

const invoke = (toolId: string, input: unknown): Promise<ToolResult> => invokeTool(t.ctx, { toolId, connectionId: conn.id, input }, tools);

function data(r: ToolResult): Record<string, any> {
  if (!r.ok) throw new Error(`expected ok, got ${JSON.stringify(r.error)}`);
  return r.data as Record<string, any>;
}

async function publishedRequest(): Promise<string> {
  const created = data(
    await invoke('contentsnare.create_request', {
      name: 'Onboarding',
      client_email: 'ada@example.com',
      client_name: 'Ada',
      template_name: 'Onboarding',
    }),
  );
  return String(created.id);
}

describe('contentsnare.get_request', () => {
  it('reads the request with its status and counts, and the fields of its first pages with their answers', async () => {
    const id = await publishedRequest();
    const page = fake.webhooks.addPage(id, 'About you', [{ name: 'Company name' }, { name: 'Logo', type: 'image' }]);
    const field = (page as Record<string, any>).sections[0].fields[0];
    fake.webhooks.setFieldStatus(String(field.id), 'done', 'Engines Ltd');
    const r = data(await invoke('contentsnare.get_request', { request_id: id }));
    expect(r).toMatchObject({ id, status: 'published', pages_read: 1 });
    expect(r.pages[0].fields.map((f: any) => [f.name, f.status, f.section])).toEqual([
      ['Company name', 'done', 'About you'],
      ['Logo', 'todo', 'About you'],
    ]);
    expect(fake.log.filter((l) => l.method === 'GET').map((l) => l.path)).toEqual([
      `/partner_api/v1/requests/${id}`,
      `/partner_api/v1/pages/${String(page?.id)}`,
    ]);
  });

  it('pages: 0 reads the request alone, one read', async () => {
    const id = await publishedRequest();
    fake.webhooks.addPage(id, 'About you', [{ name: 'Company name' }]);
    const before = fake.log.length;
    const r = data(await invoke('contentsnare.get_request', { request_id: id, pages: 0 }));
    expect(r.pages_read).toBe(0);
    expect(r.pages[0].fields).toBeUndefined();
    expect(fake.log.length - before).toBe(1);
  });

  it('an unknown request is not_found naming input.request_id', async () => {
    const r = await invoke('contentsnare.get_request', { request_id: 'req_nope' });
    expect(r).toMatchObject({ ok: false, error: { code: 'not_found', details: { fields: [{ field: 'input.request_id' }] } } });
  });
});

describe('contentsnare.list_requests and list_clients', () => {
  it('lists requests of one status a page at a time, with where to read on', async () => {
    await publishedRequest();
    await publishedRequest();
    const first = data(await invoke('contentsnare.list_requests', { status: 'published', limit: 1 }));
    expect(first).toMatchObject({ count: 1, total_count: 2, next_offset: 1 });
    expect(first.items[0]).toMatchObject({ status: 'published' });
    const rest = data(await invoke('contentsnare.list_requests', { status: 'published', limit: 1, offset: 1 }));
    expect(rest).toMatchObject({ count: 1, next_offset: null });
    const sent = fake.log
      .filter((l) => l.method === 'GET' && l.path.endsWith('/requests'))
      .map((l) => l.query.getAll('filter_by[statuses][]'));
    expect(sent).toEqual([['published'], ['published']]);
  });

  it('lists clients found by name or e-mail', async () => {
    await invoke('contentsnare.create_client', { name: 'Ada Lovelace', email: 'ada@example.com' });
    await invoke('contentsnare.create_client', { name: 'Charles Babbage', email: 'cb@example.com' });
    const r = data(await invoke('contentsnare.list_clients', { q: 'ada' }));
    expect(r.items.map((c: any) => c.email)).toEqual(['ada@example.com']);
    expect(r).toMatchObject({ count: 1, total_count: 1, next_offset: null });
  });
});
