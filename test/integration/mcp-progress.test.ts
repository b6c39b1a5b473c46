import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { routes as toolStepRoutes } from '../../functions/tool-step/routes';
import { allProviderTools } from '../../shared/wiring/provider-tools';
import { createRouter } from '../../shared/http/router';
import { stopTestDynamo } from '../helpers/dynamo';
import { startFakeContentSnare, type FakeContentSnare } from '../helpers/fake-contentsnare';
import { testContext, testPlatformKey } from '../helpers/test-context';

let snare: FakeContentSnare;
beforeAll(async () => {
  snare = await startFakeContentSnare();
});
afterAll(async () => {
  await snare.close();
  await stopTestDynamo();
});

/** The JSON-RPC messages of an event-stream answer, in order. */
function messages(body: string): Record<string, any>[] {
  return [...body.matchAll(/^data: (.+)$/gm)].map((m) => JSON.parse(m[1] ?? 'null'));
}

describe('MCP tools/call while the service makes the call wait', () => {
  async function call(meta: Record<string, unknown> | undefined) {
    const t = await testContext({ CONTENTSNARE_API_URL: snare.url });
    const connection = await t.connect(
      { provider: 'contentsnare', authMethod: 'oauth', accountLogin: 'ops@example.com' },
      'cs-token-progress',
    );
    const router = createRouter(toolStepRoutes(t.ctx, allProviderTools()), { platformApiKey: async () => testPlatformKey });
    // The service answers 429 with Retry-After: the step waits (on the test clock), then retries.
    snare.script.push({ status: 429, headers: { 'retry-after': '3' } });
    const res = await router({
      method: 'POST',
      path: `/mcp/${connection.id}`,
      headers: {
        authorization: `Bearer ${testPlatformKey}`,
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
      },
      query: new URLSearchParams(),
      body: Buffer.from(
        JSON.stringify({
          jsonrpc: '2.0',
          id: 7,
          method: 'tools/call',
          params: {
            name: 'contentsnare_create_client',
            arguments: { name: 'Ada', email: `ada-${Date.now()}@example.com` },
            ...(meta ? { _meta: meta } : {}),
          },
        }),
      ),
    });
    t.close();
    return { status: res.status, messages: messages(String(res.body)) };
  }

  it('sends progress notifications for the wait, before the result, when the client asked with a progress token', async () => {
    const { status, messages: sent } = await call({ progressToken: 'p-1' });
    expect(status).toBe(200);
    const progress = sent.filter((m) => m.method === 'notifications/progress');
    expect(progress.length).toBeGreaterThan(0);
    expect(progress[0]?.params).toMatchObject({ progressToken: 'p-1', progress: 1 });
    expect(progress[0]?.params.message).toMatch(/waiting \d+ s/);
    const result = sent.at(-1);
    expect(result?.id).toBe(7);
    expect(result?.result.isError, JSON.stringify(result)).toBeFalsy();
  });

  it('sends none when the client did not ask', async () => {
    const { messages: sent } = await call(undefined);
    expect(sent.filter((m) => m.method === 'notifications/progress')).toEqual([]);
    expect(sent.at(-1)?.result.isError).toBeFalsy();
  });
});
