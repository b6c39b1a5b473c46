import type { Context } from 'aws-lambda';
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { testStore } from '../helpers/dynamo';
import { FakeSqs } from '../helpers/fake-sqs';
import type { DynamoStore } from '../../shared/adapters/aws/dynamo-store';
import { bodyRow, queuedSummary, summaryRow } from '../../shared/store/event-history';
import { ConnectionRepo } from '../../shared/store/connection-repo';
import { SubscriptionRepo } from '../../shared/store/subscription-repo';

/**
 * The deployed handlers themselves (functions/<name>/handler.ts), built from the
 * environment as on Lambda, the table on the embedded DynamoDB (through the SDK's
 * AWS_ENDPOINT_URL_DYNAMODB). Each one must log through Powertools (JSON, its function
 * name as `service`, the invocation context on the line) and flush the metrics it counted
 * as EMF after every invocation.
 */
interface Line {
  message?: string;
  service?: string;
  function_request_id?: string;
  _aws?: { CloudWatchMetrics: Array<{ Namespace: string; Metrics: Array<{ Name: string }> }> };
  [key: string]: unknown;
}

const platformKey = 'platform-key-for-handler-tests-0123456789';
const savedEnv = { ...process.env };
let lines: Line[] = [];
let sqs: FakeSqs;
let store: DynamoStore;

const context = (name: string, requestId: string) =>
  ({
    functionName: `agent-integrations-test-${name}`,
    awsRequestId: requestId,
    invokedFunctionArn: `arn:aws:lambda:eu-west-1:1:function:agent-integrations-test-${name}`,
    memoryLimitInMB: '256',
    functionVersion: '$LATEST',
  }) as unknown as Context;

const urlEvent = (method: string, path: string, headers: Record<string, string> = {}, body = '') => ({
  version: '2.0',
  rawPath: path,
  rawQueryString: '',
  headers,
  body,
  isBase64Encoded: false,
  requestContext: { http: { method, path } },
});

type AnyHandler = (event: unknown, context: Context) => Promise<unknown>;
const load = async (name: string): Promise<AnyHandler> =>
  ((await import(`../../functions/${name}/handler.ts`)) as { handler: AnyHandler }).handler;

const logsOf = (service: string) => lines.filter((l) => l.service === service && l._aws === undefined);
const emfOf = (service: string) => lines.filter((l) => l.service === service && l._aws !== undefined);

beforeAll(async () => {
  const made = await testStore();
  const { endpoint, tableName } = made;
  store = made.store;
  sqs = await FakeSqs.start();
  Object.assign(process.env, {
    AWS_ENDPOINT_URL_SQS: sqs.url,
    AWS_ENDPOINT_URL_DYNAMODB: endpoint,
    AWS_REGION: 'local',
    AWS_ACCESS_KEY_ID: 'local',
    AWS_SECRET_ACCESS_KEY: 'local',
    TABLE_NAME: tableName,
    PLATFORM_API_KEY: platformKey,
    DISPATCH_SIGNING_SECRET: 'dispatch-secret-for-handler-tests',
    // The dispatch test sends an empty batch; a replay sends here.
    QUEUE_URL: `${sqs.url}/000000000000/dispatch`,
    STAGE: 'test',
    LOG_LEVEL: 'INFO',
  });
});

afterAll(async () => {
  await sqs.close();
  for (const k of Object.keys(process.env)) if (!(k in savedEnv)) delete process.env[k];
  Object.assign(process.env, savedEnv);
});

beforeEach(() => {
  lines = [];
  const capture = (chunk: unknown) => {
    for (const text of String(chunk).split('\n')) {
      if (!text.trim().startsWith('{')) continue;
      try {
        lines.push(JSON.parse(text) as Line);
      } catch {
        // not one of ours
      }
    }
    return true;
  };
  vi.spyOn(process.stdout, 'write').mockImplementation(capture);
  vi.spyOn(process.stderr, 'write').mockImplementation(capture);
  return () => vi.restoreAllMocks();
});

describe('Lambda handlers: Powertools logs and EMF metrics per invocation', () => {
  it('poller: a cold start line with the invocation context, and its counts flushed after each invocation', async () => {
    const handler = await load('poller');
    await handler({}, context('poller', 'req-poll-1'));
    await handler({}, context('poller', 'req-poll-2'));
    const cold = logsOf('poller').filter((l) => l.message === 'cold start');
    expect(cold).toHaveLength(1);
    expect(cold[0]).toMatchObject({ function_request_id: 'req-poll-1' });
    const rounds = logsOf('poller').filter((l) => l.message === 'poll round done');
    expect(rounds.map((l) => l.function_request_id)).toEqual(['req-poll-1', 'req-poll-2']);
    const emf = emfOf('poller');
    expect(emf).toHaveLength(2);
    expect(emf[0]).toMatchObject({ stage: 'test', poll_announced: 0 });
    expect(emf[0]!._aws!.CloudWatchMetrics[0]!.Namespace).toBe('AgentIntegrations');
  });

  it('redelivery-sweep: logs its round and flushes SweepRedeliveries', async () => {
    const handler = await load('redelivery-sweep');
    expect(await handler({}, context('redelivery-sweep', 'req-sweep'))).toMatchObject({ endpoints: 0, redelivered: 0 });
    expect(logsOf('redelivery-sweep').map((l) => l.message)).toEqual(expect.arrayContaining(['cold start', 'redelivery sweep done']));
    expect(emfOf('redelivery-sweep')[0]).toMatchObject({ SweepRedeliveries: 0 });
  });

  it('webhook-intake: a refused delivery is answered, logged under the function and counted as DeliveriesRefused', async () => {
    const handler = await load('webhook-intake');
    const res = (await handler(
      urlEvent(
        'POST',
        '/webhooks/github/ep_missing',
        { 'x-github-event': 'ping', 'x-github-delivery': 'd-1', 'content-type': 'application/json' },
        '{}',
      ),
      context('webhook-intake', 'req-intake'),
    )) as { statusCode: number };
    expect(res.statusCode).toBeGreaterThanOrEqual(400);
    expect(logsOf('webhook-intake').some((l) => l.message === 'cold start')).toBe(true);
    expect(emfOf('webhook-intake').some((d) => typeof d.DeliveriesRefused === 'number')).toBe(true);
  });

  it('platform-api and oauth: requests answered through the wrapper, one cold start line each', async () => {
    const api = await load('platform-api');
    const listed = (await api(
      urlEvent('GET', '/connections', { authorization: `Bearer ${platformKey}` }),
      context('platform-api', 'req-api'),
    )) as { statusCode: number; body: string; headers?: Record<string, string> };
    expect(listed.statusCode).toBe(200);
    expect(listed.headers).toMatchObject({ 'x-content-type-options': 'nosniff', 'cache-control': 'no-store' });
    expect(JSON.parse(listed.body)).toEqual({ connections: [] });
    expect(logsOf('platform-api').filter((l) => l.message === 'cold start')).toHaveLength(1);

    const oauth = await load('oauth');
    const unauthorized = (await oauth(urlEvent('POST', '/oauth/github/authorize', {}, '{}'), context('oauth', 'req-oauth'))) as {
      statusCode: number;
    };
    expect(unauthorized.statusCode).toBe(401);
    expect(logsOf('oauth').filter((l) => l.message === 'cold start')).toHaveLength(1);
  });

  it('platform-api: the event history is served by the function: listed, read, and replayed through SQS', async () => {
    const api = await load('platform-api');
    const now = Date.now();
    const event = {
      id: 'evt_lambda1',
      trigger: 'github.new_issue' as const,
      subscriptionId: 'sub_1',
      agentId: 'agent-1',
      connectionId: 'conn_1',
      deliveryId: 'guid-1',
      occurredAt: new Date(now).toISOString(),
      event: { repository: { full_name: 'octo/hello' }, issue: { number: 1 } },
    };
    await store.putAll([summaryRow(queuedSummary(event, now), now), bodyRow(event.id, now, { json: JSON.stringify(event) })]);
    // A replay passes the gates of a first delivery: its connection and subscription exist.
    const at = new Date(now).toISOString();
    await new ConnectionRepo(store).create({
      id: 'conn_1',
      provider: 'github',
      accountLogin: 'octo',
      authMethod: 'token',
      status: 'connected',
      repositories: [],
      createdAt: at,
      updatedAt: at,
    });
    await new SubscriptionRepo(store).create({
      id: 'sub_1',
      connectionId: 'conn_1',
      trigger: 'github.new_issue',
      agentId: 'agent-1',
      filters: {},
      delivery: 'webhook',
      createdAt: at,
    });
    const auth = { authorization: `Bearer ${platformKey}` };
    type Answer = { statusCode: number; body: string };
    const call = async (method: string, path: string, query = '') =>
      (await api({ ...urlEvent(method, path, auth), rawQueryString: query }, context('platform-api', `req-${path}`))) as Answer;
    const listed = await call('GET', '/events', 'repository=octo/hello');
    expect(listed.statusCode).toBe(200);
    expect(JSON.parse(listed.body).events.map((e: { id: string }) => e.id)).toEqual(['evt_lambda1']);
    const one = await call('GET', '/events/evt_lambda1');
    expect(JSON.parse(one.body)).toMatchObject({ id: 'evt_lambda1', status: 'queued', event: { id: 'evt_lambda1' } });
    const replayed = await call('POST', '/events/evt_lambda1/replay');
    expect(replayed.statusCode, replayed.body).toBe(202);
    const { id } = JSON.parse(replayed.body) as { id: string };
    expect(sqs.sent).toHaveLength(1);
    expect(sqs.sent[0]?.queueUrl).toBe(`${sqs.url}/000000000000/dispatch`);
    expect(JSON.parse(sqs.sent[0]!.body)).toMatchObject({ id, replayOf: 'evt_lambda1', event: event.event });
    const bad = await call('GET', '/events', 'status=lost');
    expect(bad.statusCode).toBe(400);
    expect(bad.body).toContain('status');
  });

  it('dispatch: an SQS batch goes through the wrapper', async () => {
    const handler = await load('dispatch');
    expect(await handler({ Records: [] }, context('dispatch', 'req-dispatch'))).toEqual({ batchItemFailures: [] });
    expect(logsOf('dispatch').filter((l) => l.message === 'cold start')).toHaveLength(1);
  });

  it('tool-step: a direct invoke of an unknown tool answers the ToolResult and counts ToolSteps by outcome', async () => {
    const handler = await load('tool-step');
    const result = (await handler(
      { toolId: 'github.no_such_tool', connectionId: 'c_none', input: {} },
      context('tool-step', 'req-tool'),
    )) as { ok: boolean };
    expect(result.ok).toBe(false);
    expect(logsOf('tool-step').some((l) => l.message === 'cold start')).toBe(true);
    expect(emfOf('tool-step').some((d) => typeof d.ToolSteps === 'number')).toBe(true);
  });

  it('a failing invocation is logged (redacted) under the function and rethrown, its metrics still flushed', async () => {
    const handler = await load('dispatch');
    // A record whose attributes are missing makes the batch mapping throw before any AWS call.
    await expect(
      handler({ Records: [{ messageId: 'm-1', body: 'x', receiptHandle: 'r' }] }, context('dispatch', 'req-fail')),
    ).rejects.toThrow();
    expect(logsOf('dispatch').find((l) => l.message === 'invocation failed')).toMatchObject({ function_request_id: 'req-fail' });
  });
});
