import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DynamoStore } from '../../shared/adapters/aws/dynamo-store';
import { ensureTable } from '../../shared/adapters/aws/ensure-table';
import { embeddedDynamoClientConfig, startEmbeddedDynamo } from '../../shared/adapters/local/embedded-dynamo';
import { EncryptedSecretStore } from '../../shared/adapters/local/encrypted-secret-store';
import { loadConfig } from '../../shared/config/config';
import type { Connection } from '../../shared/domain/model';
import { githubTriggerIds as triggerIds, type TriggerId } from '../../shared/domain/triggers';
import { systemClock } from '../../shared/ports';
import { sourceFor } from '../../shared/subscriptions/trigger-rules';
import { triggerCatalog } from '../../shared/wiring/providers';
import { appEnv, appShot, fullInstallation, storeAppConnection } from '../helpers/app-webhook';
import { FakeGitHubAppWorld } from '../helpers/fake-github-app';
import { FakeAgentRuntime } from '../helpers/fake-agent-runtime';
import { FakeGitHub } from '../helpers/fake-github-server';
import { startLocalProcess, type RunningLocal } from '../helpers/local-process';
import { httpApiCaller } from '../helpers/platform-api-caller';
import { until } from '../helpers/runtime-support';
import { examplePayload } from '../helpers/signed-delivery';

const key = 'app-webhook-e2e-platform-key-0123456789abcdef';
const repo = 'Codertocat/Hello-World';
let dataDir: string;
let github: FakeGitHub;
/** GitHub's App side, in front of the fake code host. */
let app: FakeGitHubAppWorld;
let agent: FakeAgentRuntime;
let local: RunningLocal;
let connection: Connection;
let appPrivateKey: string;
let appClientId: string;

/** A github_app connection in the data dir before the runtime opens it (the install flow's result, made directly). */
async function seedConnection(dir: string, userToken: string): Promise<Connection> {
  const dynamo = await startEmbeddedDynamo({ path: join(dir, 'dynamodb') });
  try {
    const client = new DynamoDBClient(embeddedDynamoClientConfig(dynamo.endpoint));
    const tableName = loadConfig({ PLATFORM_API_KEY: key }).tableName;
    await ensureTable(client, tableName);
    const ctx = {
      store: new DynamoStore(tableName, client, systemClock),
      secrets: EncryptedSecretStore.open({ dir: join(dir, 'secrets') }),
      clock: systemClock,
    };
    return await storeAppConnection(ctx, { installationId: 7, account: 'Codertocat', login: 'Codertocat' }, userToken);
  } finally {
    await dynamo.close();
  }
}

beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'app-webhook-e2e-'));
  // The code host plays the App too: the JWT checked, installation tokens minted, and those tokens
  // acting as the account on the rest of the fake (the polled triggers read with them).
  app = new FakeGitHubAppWorld({ appId: Number(appEnv.GITHUB_APP_ID), slug: appEnv.GITHUB_APP_SLUG });
  app.addInstallation({ id: 7, account: { login: 'Codertocat', id: 1001, type: 'User' }, ...fullInstallation });
  const userToken = app.issueUserToken('Codertocat').accessToken;
  connection = await seedConnection(dataDir, userToken);
  github = await FakeGitHub.start();
  const codertocat = github.addUser(userToken, 'Codertocat');
  github.before = (req) => {
    const answer = app.handle(req);
    if (answer) return answer;
    const token = /^(?:Bearer|token) (.+)$/i.exec(String(req.headers.authorization ?? ''))?.[1];
    if (token && app.installationTokens.has(token) && !github.users.has(token)) github.users.set(token, codertocat);
    return undefined;
  };
  appPrivateKey = app.privateKeyPem;
  appClientId = app.clientId;
  github.watchers.set(repo, []);
  agent = await FakeAgentRuntime.start();
  local = await startLocalProcess({
    ...appEnv,
    GITHUB_APP_CLIENT_ID: appClientId,
    GITHUB_APP_PRIVATE_KEY: appPrivateKey,
    DATA_DIR: dataDir,
    PORT: '0',
    PLATFORM_API_KEY: key,
    GITHUB_API_URL: github.url,
    AGENT_RUNTIME_URL: agent.url,
    POLL_INTERVAL_SECONDS: '3600',
  });
}, 60_000);

afterAll(async () => {
  await local?.stop();
  await Promise.all([github?.close(), agent?.close()]);
  rmSync(dataDir, { recursive: true, force: true });
});

function targetOf(trigger: TriggerId): Record<string, string> {
  if (sourceFor(triggerCatalog, trigger, { kind: 'repository', repository: repo })) return { repository: repo };
  if (sourceFor(triggerCatalog, trigger, { kind: 'organization', organization: 'Codertocat' })) return { organization: 'Codertocat' };
  return {};
}

describe('npm start: a GitHub App connection', () => {
  it('gets every trigger without a single hook, and the documented examples, signed with the App secret, reach the agent runtime', async () => {
    const api = httpApiCaller(local.url, key);
    const agentOf = new Map<string, TriggerId>();
    for (const trigger of triggerIds) {
      const agentId = `agent-${trigger.slice(7)}`;
      const res = await api('POST', '/subscriptions', { connectionId: connection.id, trigger, agentId, ...targetOf(trigger) });
      expect(res.status, `${trigger}: ${JSON.stringify(res.body)}`).toBe(201);
      agentOf.set(agentId, trigger);
    }
    expect(github.hooks.size).toBe(0);
    // `npm run trigger`'s path: the documented example of each trigger, fitted, signed with the App's secret and
    // posted to /webhooks/github/app (polled triggers are enqueued as the poller would).
    for (const trigger of triggerIds) {
      const sent = await api('POST', '/admin/trigger', { trigger });
      expect(sent.status, `${trigger}: ${JSON.stringify(sent.body)}`).toBe(200);
      // One delivery may also match other triggers' subscriptions of the installation (a review request is a mention too).
      if (sent.body.kind === 'webhook') {
        expect(sent.body.intake.status, trigger).toBe(202);
        expect(sent.body.intake.body.accepted, trigger).toBeGreaterThanOrEqual(1);
      }
    }
    await until('an event for every trigger', () => new Set(agent.events().map((b) => b.agentId)).size >= triggerIds.length, 30_000);
    const received = agent.events();
    expect([...new Set(received.map((b) => b.agentId as string))].sort()).toEqual([...agentOf.keys()].sort());
    // Each event reached its agent once.
    expect(new Set(received.map((b) => b.id)).size).toBe(received.length);
    expect(github.hooks.size).toBe(0);
  });

  it('takes a delivery the way the code host sends it (App headers and secret), and refuses one signed otherwise', async () => {
    const before = agent.requests.length;
    const payload = examplePayload('issues', 'opened') as Record<string, any>;
    payload.issue.node_id = 'I_e2e_outside_check';
    const shot = appShot('issues', payload, { installationId: 7 });
    const post = (headers: Record<string, string>) => fetch(`${local.url}${shot.path}`, { method: 'POST', headers, body: shot.body });
    const forged = await post({
      ...shot.headers,
      'x-hub-signature-256': appShot('issues', payload, { installationId: 7, secret: 'wrong' }).headers['x-hub-signature-256']!,
    });
    expect(forged.status).toBe(401);
    const res = await post(shot.headers);
    expect(res.status).toBe(202);
    expect(await res.json()).toEqual({ ok: true, accepted: 1 });
    await until('the delivery at the agent runtime', () => agent.requests.length > before, 15_000);
    expect(
      agent
        .events()
        .slice(before)
        .map((b) => b.agentId),
    ).toEqual(['agent-new_issue']);
  });

  it('stops everything the installation fed once it is deleted', async () => {
    const before = agent.requests.length;
    const deleted = examplePayload('installation', 'deleted') as Record<string, any>;
    deleted.installation.id = 7;
    // GitHub no longer has it (404 on the read-back the deletion is checked against).
    app.installations.delete(7);
    const lifecycle = appShot('installation', deleted, { installationId: null });
    const res = await fetch(`${local.url}${lifecycle.path}`, { method: 'POST', headers: lifecycle.headers, body: lifecycle.body });
    // Queued by the intake, applied by the dispatch consumer.
    expect(res.status).toBe(202);
    const api = httpApiCaller(local.url, key);
    await until('the deletion applied', async () => (await api('GET', `/connections/${connection.id}`)).body.status === 'revoked');
    expect((await api('GET', `/connections/${connection.id}`)).body.status).toBe('revoked');
    const payload = examplePayload('issues', 'opened') as Record<string, any>;
    payload.issue.node_id = 'I_e2e_after_delete';
    const shot = appShot('issues', payload, { installationId: 7 });
    const after = await fetch(`${local.url}${shot.path}`, { method: 'POST', headers: shot.headers, body: shot.body });
    expect(await after.json()).toEqual({ ok: true, accepted: 0 });
    await new Promise((r) => setTimeout(r, 500));
    expect(agent.requests.length).toBe(before);
  });
});
