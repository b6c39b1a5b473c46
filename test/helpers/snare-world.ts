import type { Connection } from '../../shared/domain/model';
import { receiveSnareDelivery } from '../../shared/providers/contentsnare/intake/snare-source';
import { createSubscription } from '../../shared/subscriptions/create-subscription';
import { startFakeContentSnare, type FakeContentSnare } from './fake-contentsnare';
import { testContext, type TestContext } from './test-context';

/**
 * A collection-service world for tests: the fake partner API (written from its reference)
 * with its webhooks delivering straight into the intake (`receiveSnareDelivery`, as the
 * route would call it), a test context on the embedded DynamoDB and one connection granted
 * the `administration` scope.
 */
export interface SnareWorld {
  t: TestContext;
  fake: FakeContentSnare;
  connection: Connection;
  token: string;
  /** Deliveries answered by the intake, in order: the URL's path and the answer. */
  answers: Array<{ path: string; status: number; body: Record<string, unknown> }>;
  /** Posts a body to a URL path of the intake as the service would (no headers, no signature). */
  post(path: string, body: unknown): Promise<{ status: number; body: Record<string, unknown> }>;
  subscribe(trigger: string, filters?: Record<string, string>): Promise<{ id: string }>;
  /** The URL path of the connection's registered hook. */
  hookPath(): string;
  close(): Promise<void>;
}

export async function startSnareWorld(options: { scopes?: string[] } = {}): Promise<SnareWorld> {
  let clockNow = () => Date.now();
  const fake = await startFakeContentSnare({ now: () => clockNow() });
  const t = await testContext({ CONTENTSNARE_API_URL: fake.url, PUBLIC_URL: 'http://127.0.0.1:9' });
  clockNow = () => t.clock.now();
  const token = 'cs-world-token';
  const connection = await t.connect(
    {
      provider: 'contentsnare',
      authMethod: 'oauth',
      accountLogin: 'Simulated Snare Admin',
      scopes: options.scopes ?? ['read_clients', 'write_clients', 'read_requests', 'write_requests', 'read_templates', 'administration'],
    },
    token,
  );
  const answers: SnareWorld['answers'] = [];
  const post = async (path: string, body: unknown) => {
    const m = /^\/webhooks\/contentsnare\/([^/]+)\/([^/]+)$/.exec(path);
    const answer = m
      ? await receiveSnareDelivery(t.ctx, {
          connectionId: decodeURIComponent(m[1] ?? ''),
          token: m[2] ?? '',
          headers: { 'content-type': 'application/json' },
          body: Buffer.from(JSON.stringify(body)),
        })
      : { status: 404, body: { error: { code: 'not_found' } } };
    answers.push({ path, status: answer.status, body: answer.body });
    return answer;
  };
  fake.webhooks.deliver = async (url, body) => (await post(new URL(url).pathname, body)).status;
  return {
    t,
    fake,
    connection,
    token,
    answers,
    post,
    subscribe: (trigger, filters) =>
      createSubscription(t.ctx, { connectionId: connection.id, trigger, agentId: 'agent-1', ...(filters ? { filters } : {}) }),
    hookPath: () => {
      const hook = [...fake.webhooks.hooks.values()][0];
      if (!hook) throw new Error('no webhook registered');
      return new URL(hook.url).pathname;
    },
    close: async () => {
      await fake.webhooks.settled();
      await fake.close();
      t.close();
    },
  };
}
