import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { appShot } from '../helpers/app-webhook';
import { FakeAgentRuntime } from '../helpers/fake-agent-runtime';
import { startFakeGitHubApp, type FakeGitHubApp } from '../helpers/fake-github-app';
import { examplePayload } from '../helpers/signed-delivery';
import { DynamoDBClient, GetItemCommand } from '@aws-sdk/client-dynamodb';
import { AwsWorld, region } from './harness/aws-world';
import { harnessKey } from './harness/iam-proxy';
import { httpClient } from './harness/http-client';

const platformKey = 'aws-mode-platform-key-0123456789abcdef';
const appWebhookSecret = 'aws-mode-app-webhook-secret-0123456789';
const returnOrigin = 'https://platform.example.test';
const octoOrg = { login: 'octo-org', id: 7001, type: 'Organization' as const };

let world: AwsWorld;
let github: FakeGitHubApp;
let runtime: FakeAgentRuntime;

beforeAll(async () => {
  github = await startFakeGitHubApp();
  runtime = await FakeAgentRuntime.start();
  world = await AwsWorld.start({
    settings: {
      githubApiUrl: github.url,
      githubOAuthUrl: github.url,
      githubAppId: String(github.app.appId),
      githubAppSlug: github.app.slug,
      githubAppClientId: github.app.clientId,
      agentRuntimeUrl: runtime.url,
      allowedReturnOrigins: returnOrigin,
    },
    secretValues: {
      PLATFORM_API_KEY_SECRET_ARN: platformKey,
      GITHUB_APP_PRIVATE_KEY_SECRET_ARN: github.app.privateKeyPem,
      GITHUB_APP_CLIENT_SECRET_ARN: github.app.clientSecret,
      GITHUB_APP_WEBHOOK_SECRET_ARN: appWebhookSecret,
    },
  });
  github.app.callbackUrl = `${world.url}/oauth/github-app/callback`;
}, 120_000);
afterAll(async () => {
  await world?.close();
  await Promise.all([github?.close(), runtime?.close()]);
});
afterEach(() => {
  // Every AWS call of every function was judged against its role's policy: none may have been refused.
  expect(world.denials()).toEqual([]);
});

/** One item of the stack's table, read with the suite's own key (not judged). */
async function tableRow(pk: string, sk: string): Promise<Record<string, { S?: string }> | undefined> {
  const dynamo = new DynamoDBClient({ region, endpoint: world.proxy.url, credentials: { accessKeyId: harnessKey, secretAccessKey: 'x' } });
  const out = await dynamo.send(
    new GetItemCommand({ TableName: world.envOf('tool-step').TABLE_NAME, Key: { pk: { S: pk }, sk: { S: sk } }, ConsistentRead: true }),
  );
  dynamo.destroy();
  return out.Item as Record<string, { S?: string }> | undefined;
}

/** The `github.get_repository` step on the connection, through the front door; it must succeed. */
async function getRepositoryStep(connectionId: string): Promise<void> {
  const res = await httpClient(world.url, platformKey).call('POST', '/tools/github.get_repository/invoke', {
    connectionId,
    input: { owner: 'octo-org', repo: 'api' },
  });
  expect(res.status, res.text).toBe(200);
  expect(res.body).toMatchObject({ ok: true });
}

/** A signed delivery to the App's one webhook, as GitHub sends it. */
function appDelivery(event: string, payload: Record<string, unknown>, installationId: number | null) {
  const shot = appShot(event, payload, { installationId, secret: appWebhookSecret });
  shot.headers['x-github-hook-installation-target-id'] = String(github.app.appId);
  return fetch(`${world.url}${shot.path}`, { method: 'POST', headers: shot.headers, body: shot.body });
}

describe('AWS mode: the GitHub App', () => {
  let connectionId = '';

  it('App webhook: GitHub signed ping is accepted by the intake with the App webhook secret from Secrets Manager', async () => {
    const from = world.calls.length;
    const res = await appDelivery(
      'ping',
      { zen: 'Keep it logically awesome.', hook_id: 30, hook: { type: 'App', id: 30, app_id: github.app.appId } },
      null,
    );
    expect(res.status, await res.clone().text()).toBeLessThan(300);
    expect(world.actionsSince(from, 'webhook-intake')).toContain('webhook-intake secretsmanager:GetSecretValue');
  });

  it('install callback: the App install flow makes a github_app connection (oauth function, its table and secret grants)', async () => {
    github.app.addInstallation({
      id: 31,
      account: octoOrg,
      repositorySelection: 'selected',
      repositories: ['octo-org/api'],
      permissions: { metadata: 'read', issues: 'write', contents: 'read' },
      events: ['issues'],
    });
    // mona administers the organization, so her connection acts with the installation's reach (its steps mint installation tokens).
    github.app.setOrgRole('octo-org', 'mona', 'admin');
    const browser = httpClient(world.url, platformKey);
    const from = world.calls.length;
    const started = await browser.call('POST', '/oauth/github-app/authorize', { returnTo: `${returnOrigin}/done`, label: 'Org' });
    expect(started.status, started.text).toBe(200);
    const atStart = await browser.call('GET', started.body.authorizeUrl as string);
    expect(atStart.status, atStart.text).toBe(302);
    const back = github.app.browse(atStart.headers.get('location') ?? '', { login: 'mona', installationId: 31 });
    const done = await browser.call('GET', back.toString(), undefined, { authorization: '' });
    expect(done.status, done.text).toBe(302);
    const location = done.headers.get('location') ?? '';
    connectionId = new URL(location).searchParams.get('connectionId') ?? '';
    expect(connectionId, location).toMatch(/^conn_/);
    const actions = world.actionsSince(from, 'oauth');
    expect(actions).toEqual(expect.arrayContaining(['oauth dynamodb:PutItem', 'oauth secretsmanager:CreateSecret']));
  });

  it('installation token minted under its lease, kept in its row sealed with KMS, and a step run with it (tool-step: LEASE#app-token#, APPTOKEN# in its leading keys)', async () => {
    const from = world.calls.length;
    const mintsBefore = github.mints(31);
    await getRepositoryStep(connectionId);
    expect(github.mints(31)).toBe(mintsBefore + 1);
    const leaseWrites = world.calls
      .slice(from)
      .filter((c) => world.roleName(c.role) === 'tool-step' && c.operation === 'PutItem')
      .flatMap((c) => c.checks.flatMap((k) => k.conditions['dynamodb:LeadingKeys'] ?? []));
    expect(leaseWrites).toContain('LEASE#app-token#31');
    // The token is shared with every container through its row in the table, sealed with the stack's KMS key.
    expect(leaseWrites).toContain('APPTOKEN#31');
    const actions = world.actionsSince(from, 'tool-step');
    expect(actions).toContain('tool-step kms:Encrypt');
    expect(actions.filter((a) => a.includes('secretsmanager:CreateSecret') || a.includes('secretsmanager:PutSecretValue'))).toEqual([]);
    const row = await tableRow('APPTOKEN#31', 'APPTOKEN');
    expect(row?.sealed?.S).toEqual(expect.any(String));
    for (const token of github.app.installationTokens.keys()) expect(JSON.stringify(row)).not.toContain(token);
  });

  it("a new container reads the installation token from its sealed row (kms:Decrypt under the row's context) and mints none", async () => {
    await world.coldStart('tool-step');
    const from = world.calls.length;
    const mintsBefore = github.mints(31);
    await getRepositoryStep(connectionId);
    expect(github.mints(31)).toBe(mintsBefore);
    const kmsCalls = world.calls.slice(from).filter((c) => c.service === 'kms');
    expect(kmsCalls.map((c) => c.operation)).toEqual(['Decrypt']);
    expect(kmsCalls[0]?.checks[0]?.conditions['kms:EncryptionContext:row']).toEqual(['APPTOKEN#31']);
  });

  it('uninstall: the installation.deleted delivery revokes the installation connections', async () => {
    const from = world.calls.length;
    const payload = examplePayload('installation', 'deleted');
    (payload.installation as Record<string, unknown>).account = { ...octoOrg, node_id: 'O_1' };
    github.app.installations.delete(31);
    const res = await appDelivery('installation', { ...payload, installation: { ...(payload.installation as object), id: 31 } }, 31);
    expect(res.status, await res.clone().text()).toBeLessThan(300);
    // The intake holds no code-host credential: it queues the delivery, and the dispatch consumer reads it back and applies it.
    await world.drainQueues();
    expect(world.actionsSince(from, 'dispatch')).toEqual(expect.arrayContaining(['dispatch dynamodb:Query']));
    const api = httpClient(world.url, platformKey);
    const after = await api.call('GET', `/connections/${connectionId}`);
    expect(after.body?.status ?? after.status).not.toBe('connected');
    // The intake only claimed and queued it; the connections were read (gsi1 INST#) by dispatch, above.
    expect(world.actionsSince(from, 'webhook-intake')).toEqual(expect.arrayContaining(['webhook-intake sqs:SendMessage']));
  });
});
