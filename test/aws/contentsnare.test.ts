import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { FakeAgentRuntime } from '../helpers/fake-agent-runtime';
import { startFakeContentSnare, type FakeContentSnare } from '../helpers/fake-contentsnare';
import { startFakeOAuthServer, type FakeOAuthServer } from '../helpers/fake-oauth-server';
import { AwsWorld } from './harness/aws-world';
import { httpClient } from './harness/http-client';

const platformKey = 'aws-mode-platform-key-snare-0123456789ab';
const returnOrigin = 'https://platform.example.test';
const snareScopes = 'read_clients write_clients read_requests write_requests read_templates administration';

let world: AwsWorld;
let oauth: FakeOAuthServer;
let snare: FakeContentSnare;
let runtime: FakeAgentRuntime;

beforeAll(async () => {
  oauth = await startFakeOAuthServer();
  snare = await startFakeContentSnare();
  runtime = await FakeAgentRuntime.start();
  world = await AwsWorld.start({
    settings: {
      contentsnareOAuthUrl: oauth.url,
      contentsnareApiUrl: snare.url,
      contentsnareClientId: oauth.clientId,
      agentRuntimeUrl: runtime.url,
      allowedReturnOrigins: returnOrigin,
    },
    secretValues: { PLATFORM_API_KEY_SECRET_ARN: platformKey, CONTENTSNARE_CLIENT_SECRET_ARN: oauth.clientSecret },
  });
}, 180_000);
afterAll(async () => {
  await snare?.webhooks.settled();
  await world?.close();
  await Promise.all([oauth?.close(), snare?.close(), runtime?.close()]);
});
afterEach(() => {
  // Every AWS call of every function was judged against its role's policy: none may have been refused.
  expect(world.denials()).toEqual([]);
});

/** A collection-service connection granted the `administration` scope (webhooks need it), made by the OAuth round trip. */
async function connectSnare(): Promise<string> {
  oauth.behaviour.extraTokenFields = { scope: snareScopes };
  const browser = httpClient(world.url, platformKey);
  const started = await browser.call('POST', '/oauth/contentsnare/authorize', {
    returnTo: `${returnOrigin}/done`,
    scopes: ['administration'],
  });
  expect(started.status, started.text).toBe(200);
  const atStart = await browser.call('GET', started.body.authorizeUrl as string);
  expect(atStart.status, atStart.text).toBe(302);
  const back = await oauth.browse(atStart.headers.get('location') ?? '');
  const done = await browser.call('GET', back.toString(), undefined, { authorization: '' });
  expect(done.status, done.text).toBe(302);
  return new URL(done.headers.get('location') ?? '').searchParams.get('connectionId') ?? '';
}

describe('AWS mode: the collection service', () => {
  const api = () => httpClient(world.url, platformKey).call;

  it('a Content Snare webhook with its read-back: the subscription registers the webhook, the intake queues the delivery, dispatch reads the request back and the event reaches the agent runtime', async () => {
    const connectionId = await connectSnare();
    expect(connectionId).toMatch(/^conn_/);
    const subscribed = world.calls.length;
    const sub = await api()('POST', '/subscriptions', { connectionId, trigger: 'contentsnare.request_published', agentId: 'agent-1' });
    expect(sub.status, sub.text).toBe(201);
    // The product registered its webhook at the service, pointing at the intake's URL for this connection.
    const hooks = [...snare.webhooks.hooks.values()];
    expect(hooks).toHaveLength(1);
    expect(hooks[0]?.url).toMatch(new RegExp(`^${world.url}/webhooks/contentsnare/${connectionId}/[A-Za-z0-9_-]{43}$`));
    expect(hooks[0]?.subscriptions).toEqual(['request_published']);
    expect(world.actionsSince(subscribed, 'platform-api')).toEqual(
      expect.arrayContaining(['platform-api secretsmanager:GetSecretValue', 'platform-api dynamodb:PutItem']),
    );

    // Someone publishes a request at the service: it posts the delivery to the registered URL (the front door).
    const from = world.calls.length;
    const created = await fetch(`${snare.url}/partner_api/v1/requests`, {
      method: 'POST',
      headers: { authorization: 'Bearer someone-at-the-agency', 'content-type': 'application/json', accept: 'application/json' },
      body: JSON.stringify({
        name: 'Onboarding Acme',
        client_email: 'ada@acme.example',
        client_full_name: 'Ada Client',
        request_template_name: 'Onboarding',
        status: 'published',
      }),
    });
    expect(created.status).toBe(200);
    const request = (await created.json()) as { id: string };
    await snare.webhooks.settled();
    const logFrom = snare.log.length;
    await world.drainQueues();

    const events = runtime.events();
    expect(events.map((e) => e.trigger)).toEqual(['contentsnare.request_published']);
    expect(JSON.stringify(events[0]?.event)).toContain(request.id);
    // The read-back: dispatch asked the service for the request, with the connection's token.
    const reads = snare.log.slice(logFrom).filter((e) => e.method === 'GET' && e.path.includes(request.id));
    expect(reads.length).toBeGreaterThan(0);
    expect(oauth.validAccessTokens.has(reads[0]?.token ?? '')).toBe(true);
    // The intake holds no connection token: it only queued the read-back job.
    const intake = world.actionsSince(from, 'webhook-intake');
    expect(intake).toContain('webhook-intake sqs:SendMessage');
    expect(intake.filter((a) => a.includes('secretsmanager'))).toEqual([]);
    expect(world.actionsSince(from, 'dispatch')).toEqual(
      expect.arrayContaining([
        'dispatch sqs:ReceiveMessage',
        'dispatch secretsmanager:GetSecretValue',
        'dispatch sqs:SendMessage',
        'dispatch sqs:DeleteMessage',
      ]),
    );
  });
});
