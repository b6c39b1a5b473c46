import { randomUUID } from 'node:crypto';
import { SQSClient } from '@aws-sdk/client-sqs';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { SqsDeadLetterQueue } from '../../shared/adapters/aws/sqs-dead-letter-queue';
import { FakeAgentRuntime } from '../helpers/fake-agent-runtime';
import type { FakeResponse } from '../helpers/fake-http';
import { FakeGitHub, type FakeHook } from '../helpers/fake-github-server';
import { issueOpenedBody } from '../helpers/seed';
import { AwsWorld, region } from './harness/aws-world';
import { httpClient } from './harness/http-client';
import { harnessKey } from './harness/iam-proxy';

const platformKey = 'aws-mode-platform-key-codehost-0123456789';
const signingSecret = 'aws-mode-dispatch-signing-secret-0123456789';
const ghToken = 'ghp_awsModeCodeHostToken000000000000000000';
const repository = 'octocat/hello-world';

let world: AwsWorld;
let github: FakeGitHub;
let runtime: FakeAgentRuntime;
let api: ReturnType<typeof httpClient>['call'];
let connectionId = '';
let hook: FakeHook;

beforeAll(async () => {
  github = await FakeGitHub.start();
  github.addUser(ghToken, 'octocat');
  runtime = await FakeAgentRuntime.start();
  world = await AwsWorld.start({
    settings: { githubApiUrl: github.url, githubOAuthUrl: github.url, agentRuntimeUrl: runtime.url },
    secretValues: { PLATFORM_API_KEY_SECRET_ARN: platformKey, DISPATCH_SIGNING_SECRET_ARN: signingSecret },
  });
  api = httpClient(world.url, platformKey).call;
}, 180_000);
afterAll(async () => {
  await world?.close();
  await Promise.all([github?.close(), runtime?.close()]);
});
afterEach(() => {
  // Every AWS call of every function was judged against its role's policy: none may have been refused.
  expect(world.denials()).toEqual([]);
  runtime.requests.length = 0;
  runtime.answers.length = 0;
});

/** An issue opened in the subscribed repository, sent by the code host to the hook it registered. */
async function deliverIssue(title: string, extra?: (p: Record<string, any>) => void): Promise<{ status: number; guid: string }> {
  const body = issueOpenedBody((p) => {
    p.repository.full_name = repository;
    p.repository.name = 'hello-world';
    p.repository.owner.login = 'octocat';
    p.issue.title = title;
    extra?.(p);
  }).toString('utf8');
  const guid = randomUUID();
  const res = await github.deliver(hook, 'issues', body, guid);
  return { status: res.status, guid };
}

const titles = () => runtime.events().map((e) => (e.event as { issue?: { title?: string } }).issue?.title);

describe('AWS mode: the code host', () => {
  it('a subscription registers a hook (platform-api: the endpoint secret created, the hook registered at the code host)', async () => {
    const created = await api('POST', '/connections', { provider: 'github', token: ghToken });
    expect(created.status, created.text).toBe(201);
    connectionId = created.body.id;
    const from = world.calls.length;
    const sub = await api('POST', '/subscriptions', { connectionId, trigger: 'github.new_issue', agentId: 'agent-1', repository });
    expect(sub.status, sub.text).toBe(201);
    const hooks = [...github.hooks.values()].filter((h) => h.owner === `repos/${repository}`);
    expect(hooks).toHaveLength(1);
    hook = hooks[0] as FakeHook;
    expect(hook.config.url).toMatch(new RegExp(`^${world.url}/webhooks/github/`));
    expect(world.actionsSince(from, 'platform-api')).toEqual(
      expect.arrayContaining([
        'platform-api secretsmanager:CreateSecret',
        'platform-api dynamodb:PutItem',
        'platform-api secretsmanager:GetSecretValue',
      ]),
    );
  });

  it('a signed delivery goes through intake, queue and dispatch to the agent runtime, signed, with its event history', async () => {
    const from = world.calls.length;
    const sent = await deliverIssue('Through the wire');
    expect(sent.status).toBeLessThan(300);
    await world.drainQueues();
    expect(titles()).toEqual(['Through the wire']);
    const delivered = runtime.requests[0];
    expect(delivered && FakeAgentRuntime.signatureValid(delivered, signingSecret)).toBe(true);
    const intake = world.actionsSince(from, 'webhook-intake');
    expect(intake).toEqual(expect.arrayContaining(['webhook-intake secretsmanager:GetSecretValue', 'webhook-intake sqs:SendMessage']));
    const dispatch = world.actionsSince(from, 'dispatch');
    expect(dispatch).toEqual(
      expect.arrayContaining(['dispatch sqs:ReceiveMessage', 'dispatch sqs:DeleteMessage', 'dispatch dynamodb:PutItem']),
    );
    const events = await api('GET', '/events');
    expect(events.status, events.text).toBe(200);
    const listed = (events.body.events as Array<Record<string, unknown>>).find((e) => e.trigger === 'github.new_issue');
    expect(listed).toMatchObject({ status: 'delivered' });
  });

  it('replay: POST /events/{id}/replay queues the stored event again and the agent runtime receives it as a replay', async () => {
    const events = await api('GET', '/events');
    const original = (events.body.events as Array<{ id: string }>)[0] as { id: string };
    const from = world.calls.length;
    const replay = await api('POST', `/events/${original.id}/replay`, {});
    expect(replay.status, replay.text).toBeLessThan(300);
    await world.drainQueues();
    expect(runtime.events()).toHaveLength(1);
    expect(runtime.events()[0]).toMatchObject({ replayOf: original.id });
    expect(world.actionsSince(from, 'platform-api')).toContain('platform-api sqs:SendMessage');
  });

  it('an oversized body goes through S3: the intake stores it aside, dispatch reads it back and deletes it', async () => {
    const from = world.calls.length;
    const sent = await deliverIssue('Large', (p) => {
      p.issue.body = 'x'.repeat(300_000);
    });
    expect(sent.status).toBeLessThan(300);
    await world.drainQueues();
    expect(titles()).toEqual(['Large']);
    const received = runtime.events()[0] as { event: { issue: { body: string } } } | undefined;
    expect(received?.event.issue.body.length).toBe(300_000);
    expect(world.actionsSince(from, 'webhook-intake')).toContain('webhook-intake s3:PutObject');
    expect(world.actionsSince(from, 'dispatch')).toEqual(expect.arrayContaining(['dispatch s3:GetObject', 'dispatch s3:DeleteObject']));
  });

  it('a slow agent runtime (3 s an event) gets each event once: the main lane never cuts a POST that is still running', async () => {
    const held = new Promise<FakeResponse>((resolve) => setTimeout(() => resolve({ status: 200, body: { ok: true } }), 3_000));
    runtime.answers.push(held as unknown as FakeResponse, held as unknown as FakeResponse);
    const from = world.calls.length;
    await deliverIssue('Slow');
    await world.drainQueues();
    // Posted once: the main lane waited out the answer (200 after 3 s) instead of sending the event again on the slow lane.
    expect(titles()).toEqual(['Slow']);
    expect(world.actionsSince(from, 'dispatch')).not.toContain('dispatch sqs:SendMessage');
    expect(await world.queueDepth('SlowQueue')).toBe(0);
  }, 60_000);

  it('a tool step and an MCP call run with the connection token (tool-step function)', async () => {
    github.gists.set('octocat', []);
    const from = world.calls.length;
    const step = await api('POST', '/tools/github.get_repository/invoke', {
      connectionId,
      input: { owner: 'octocat', repo: 'hello-world' },
    });
    expect(step.status, step.text).toBeLessThan(500);
    const rpc = await api(
      'POST',
      '/mcp',
      { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'github_list_gists_for_user', arguments: {} } },
      { accept: 'application/json, text/event-stream' },
    );
    expect(rpc.status, rpc.text).toBe(200);
    const data = /^data: (.*)$/m.exec(rpc.text)?.[1] ?? rpc.text;
    expect(JSON.parse(data).result?.isError, data).toBeFalsy();
    expect(world.actionsSince(from, 'tool-step')).toEqual(
      expect.arrayContaining(['tool-step secretsmanager:GetSecretValue', 'tool-step dynamodb:GetItem']),
    );
  });

  it('a poll round: the scheduled poller takes a baseline, then queues a new gist for dispatch', async () => {
    github.gists.set('octocat', []);
    const sub = await api('POST', '/subscriptions', { connectionId, trigger: 'github.new_gist', agentId: 'agent-1' });
    expect(sub.status, sub.text).toBe(201);
    const first = await world.tick('poller');
    expect(first.ok, JSON.stringify(first)).toBe(true);
    const at = new Date(Date.now() + 60_000).toISOString();
    github.gists.set('octocat', [
      {
        id: 'g1',
        created_at: at,
        updated_at: at,
        description: 'polled',
        public: true,
        html_url: 'https://gist.example/g1',
        files: {},
        owner: { login: 'octocat' },
      },
    ]);
    const from = world.calls.length;
    const second = await world.tick('poller');
    expect(second.ok, JSON.stringify(second)).toBe(true);
    await world.drainQueues();
    expect(runtime.events().map((e) => e.trigger)).toContain('github.new_gist');
    expect(world.actionsSince(from, 'poller')).toEqual(expect.arrayContaining(['poller dynamodb:Query', 'poller sqs:SendMessage']));
  });

  it('a sweep round: the scheduled sweep plans one work item per hook, and its worker asks the code host to redeliver a failed delivery', async () => {
    const lost = github.recordDelivery(hook.id, { guid: 'lost-aws-1', event: 'issues', status_code: 503 });
    const from = world.calls.length;
    const out = await world.tick('redelivery-sweep');
    expect(out, JSON.stringify(out)).toMatchObject({ ok: true, result: { hooks: 1, planned: 1 } });
    expect(github.redeliveries).toEqual([]);
    // The work queue's event source hands the item back to the sweep.
    await world.drainQueues();
    expect(github.redeliveries).toContainEqual({ hookId: hook.id, deliveryId: lost.id });
    expect(world.actionsSince(from, 'redelivery-sweep')).toEqual(
      expect.arrayContaining([
        'redelivery-sweep dynamodb:Query',
        'redelivery-sweep sqs:SendMessage',
        'redelivery-sweep sqs:ReceiveMessage',
      ]),
    );
  });
  // Last in the file: eight failures in a row may open the dispatch container's circuit, which
  // would defer the events of any test after it until a probe is answered.
  it('a failing agent runtime: each retry waits out of flight, the event goes to the DLQ after its last try, and an operator redrive delivers it', async () => {
    for (let i = 0; i < 8; i++) runtime.answers.push({ status: 500, body: { error: 'down' } });
    const sent = await deliverIssue('Dead-lettered');
    expect(sent.status).toBeLessThan(300);
    // The first try fails: its retry waits as a delayed copy, nothing of it in flight.
    const tried = world.calls.length;
    await world.drainQueues();
    expect(runtime.requests.length).toBe(1);
    expect(await world.inFlight('DispatchQueue')).toBe(0);
    expect(await world.queueDepth('DispatchQueue')).toBe(1);
    // Seven more tries (maxReceiveCount from the template, carried by each copy), each failed; the queue's clock skips each backoff.
    await world.drainQueues({ skipWaits: true });
    // Eight POSTs: after the eighth the function sends the event to the dead-letter queue itself.
    expect(runtime.requests.length).toBe(8);
    expect(world.actionsSince(tried, 'dispatch')).toContain('dispatch sqs:SendMessage');
    expect(await world.queueDepth('DeadLetterQueue')).toBe(1);
    expect(await world.queueDepth('DispatchQueue')).toBe(0);
    // `npm run dlq -- redrive`: the operator's credentials, the adapter the CLI uses.
    const dlq = new SqsDeadLetterQueue(
      new SQSClient({ region, endpoint: world.proxy.url, credentials: { accessKeyId: harnessKey, secretAccessKey: 'x' } }),
      {
        dlqUrl: world.queueUrl('DeadLetterQueue'),
        sourceQueueUrl: world.queueUrl('DispatchQueue'),
      },
    );
    const redriven = world.calls.length;
    expect(await dlq.redrive()).toBe(1);
    // The failures may have opened the circuit: the event is then deferred (a delayed copy)
    // until the circuit lets one probe through, which the now healthy runtime takes.
    const posted = runtime.requests.length;
    const until = Date.now() + 20_000;
    await world.drainQueues();
    while (runtime.requests.length === posted && Date.now() < until) {
      await new Promise((r) => setTimeout(r, 500));
      await world.drainQueues();
    }
    // One more POST, answered 200 (no failure left to answer): the event was delivered this time.
    expect(titles().slice(posted)).toEqual(['Dead-lettered']);
    expect(world.actionsSince(redriven, 'dispatch')).toEqual(
      expect.arrayContaining(['dispatch sqs:ReceiveMessage', 'dispatch sqs:DeleteMessage']),
    );
    expect(await world.queueDepth('DeadLetterQueue')).toBe(0);
    expect(await world.queueDepth('DispatchQueue')).toBe(0);
  }, 60_000);
});
