import { afterAll, describe, expect, it } from 'vitest';
import { triggerIds } from '../../shared/domain/triggers';
import { platformApiCaller } from '../helpers/platform-api-caller';
import { platformKey, startRuntime, type TestRuntime } from '../helpers/runtime-support';
import { testContext } from '../helpers/test-context';

let rt: TestRuntime | undefined;
afterAll(async () => rt?.dispose());

async function call(method: string, path: string, body?: unknown, key = platformKey): Promise<{ status: number; body: any }> {
  rt ??= await startRuntime({}, false);
  const res = await fetch(`${rt.url}${path}`, {
    method,
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: res.status, body: await res.json() };
}

describe('GET /triggers and unknown ids', () => {
  it('lists every trigger with its filters, targets and an example event built through the mapping', async () => {
    const res = await call('GET', '/triggers');
    expect(res.status).toBe(200);
    expect(res.body.triggers.map((t: { id: string }) => t.id)).toEqual(triggerIds);
    const issue = res.body.triggers.find((t: { id: string }) => t.id === 'github.new_issue');
    expect(issue).toMatchObject({
      title: expect.any(String),
      targets: ['repository', 'organization'],
      delivery: 'webhook',
      filters: expect.arrayContaining(['labels']),
    });
    expect(issue.exampleEvent).toMatchObject({
      trigger: 'github.new_issue',
      subscriptionId: 'sub_example',
      event: { repository: { full_name: 'octocat/hello-world' } },
    });
    const missing = res.body.triggers.filter((t: { exampleEvent: unknown }) => t.exampleEvent === null).map((t: { id: string }) => t.id);
    expect(missing).toEqual([]);
    expect(res.body.triggers.find((t: { id: string }) => t.id === 'github.new_watcher').delivery).toBe('polling');
    expect((await call('GET', '/triggers', undefined, 'wrong-key-wrong-key-wrong-key-wrong-key')).status).toBe(401);
  });

  it('is served by the platform-api function too (AWS), from the examples bundled with it, behind the platform key', async () => {
    const t = await testContext();
    try {
      const call = platformApiCaller(t.ctx);
      const res = await call('GET', '/triggers');
      expect(res.status).toBe(200);
      expect(res.body.triggers.map((x: { id: string }) => x.id)).toEqual(triggerIds);
      expect(res.body.triggers.filter((x: { exampleEvent: unknown }) => x.exampleEvent === null)).toEqual([]);
      expect((await call('GET', '/triggers', undefined, 'Bearer wrong-key-wrong-key-wrong-key-wrong-key')).status).toBe(401);
    } finally {
      t.close();
    }
  });

  it('answers an unknown tool id with a did-you-mean, keeping its code', async () => {
    const res = await call('POST', '/tools/github.create_isue/invoke', { connectionId: 'conn_x', input: {} });
    expect(res.status).toBe(404);
    expect(res.body.error.code).toBe('not_found');
    expect(res.body.error.message).toMatch(/Did you mean github\.create_issue[ ?]/);
  });

  it('answers an unknown trigger id with a did-you-mean, keeping its code and field', async () => {
    const res = await call('POST', '/subscriptions', {
      connectionId: 'conn_x',
      trigger: 'github.new_issues',
      agentId: 'a',
      repository: 'o/r',
    });
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('invalid_input');
    expect(res.body.error.details.fields[0].field).toBe('trigger');
    expect(res.body.error.message).toContain('Did you mean github.new_issue?');
  });
});
