import { mkdtempSync, readFileSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeHttp, type FakeServer } from '../helpers/fake-http';
import { defaultAnswers, requiredOnly } from '../helpers/github-step-samples';
import { startOpenApiFakeGitHub, type OpenApiFakeGitHub } from '../helpers/openapi-check';
import { FakeAgentRuntime } from '../helpers/fake-agent-runtime';
import { FakeGitHub } from '../helpers/fake-github-server';
import { freePort, startLocalProcess } from '../helpers/local-process';
import { openLocalQueues } from '../../shared/adapters/local/local-queues';
import { systemClock } from '../../shared/ports';
import { examplePayload } from '../helpers/signed-delivery';
import { until } from '../helpers/runtime-support';
import { httpApiCaller } from '../helpers/platform-api-caller';

type ErrorBody = { error: { code: string } };

describe('npm start: the local runtime as a child process', () => {
  let dataDir: string;
  let github: FakeServer;

  beforeAll(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'local-runtime-'));
    github = await startFakeHttp((req) =>
      req.path === '/user' ? { body: { login: 'octocat', id: 1 } } : { status: 404, body: { message: 'Not Found' } },
    );
  });
  afterAll(async () => {
    await github.close();
  });

  it('serves /healthz, guards platform routes with a generated key, and keeps its data across a restart', async () => {
    const env = { DATA_DIR: dataDir, PORT: '0', GITHUB_API_URL: github.url, POLL_INTERVAL_SECONDS: '3600' };
    const first = await startLocalProcess(env);
    try {
      const health = await fetch(`${first.url}/healthz`);
      expect(health.status).toBe(200);
      expect(await health.json()).toEqual({ status: 'ok' });

      const unauthorized = await fetch(`${first.url}/connections`);
      expect(unauthorized.status).toBe(401);
      expect(((await unauthorized.json()) as ErrorBody).error.code).toBe('unauthorized');

      const keyFile = join(dataDir, 'local-secrets.json');
      expect(statSync(keyFile).mode & 0o777).toBe(0o600);
      const key = JSON.parse(readFileSync(keyFile, 'utf8')).platformApiKey as string;
      expect(first.output()).toContain(keyFile);
      expect(first.output()).not.toContain(key);

      const created = await fetch(`${first.url}/connections`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body: JSON.stringify({ provider: 'github', token: 'ghp_localRuntimeTestToken000000000000', label: 'mine' }),
      });
      expect(created.status).toBe(201);
      const connection = (await created.json()) as { id: string };
      expect(await first.stop()).toBe(0);

      const second = await startLocalProcess(env);
      try {
        const again = await fetch(`${second.url}/connections/${connection.id}`, { headers: { authorization: `Bearer ${key}` } });
        expect(again.status).toBe(200);
        expect(await again.json()).toMatchObject({ id: connection.id, accountLogin: 'octocat', label: 'mine' });
        expect(second.output()).not.toContain('ghp_localRuntimeTestToken');
      } finally {
        expect(await second.stop()).toBe(0);
      }
    } finally {
      await first.stop();
    }
  }, 90_000);

  it('answers an unknown route with a JSON 404 and a malformed body with a JSON 400, never crashing', async () => {
    const running = await startLocalProcess({
      DATA_DIR: mkdtempSync(join(tmpdir(), 'local-runtime-')),
      PORT: '0',
      PLATFORM_API_KEY: 'k'.repeat(40),
      DISPATCH_SIGNING_SECRET: 's'.repeat(40),
    });
    try {
      const missing = await fetch(`${running.url}/nope`);
      expect(missing.status).toBe(404);
      expect(((await missing.json()) as ErrorBody).error.code).toBe('not_found');
      const bad = await fetch(`${running.url}/subscriptions`, {
        method: 'POST',
        headers: { authorization: `Bearer ${'k'.repeat(40)}`, 'content-type': 'application/json' },
        body: '{not json',
      });
      expect(bad.status).toBe(400);
      expect(((await bad.json()) as ErrorBody).error.code).toBe('invalid_input');
      expect((await fetch(`${running.url}/healthz`)).status).toBe(200);
    } finally {
      expect(await running.stop('SIGINT')).toBe(0);
    }
  }, 60_000);

  it('runs every code-host tool step over HTTP against the code host at GITHUB_API_URL, with documented requests only', async () => {
    let gh: OpenApiFakeGitHub | undefined;
    gh = await startOpenApiFakeGitHub(defaultAnswers(() => gh?.url ?? ''));
    const key = 'k'.repeat(40);
    const running = await startLocalProcess({
      DATA_DIR: mkdtempSync(join(tmpdir(), 'local-runtime-')),
      PORT: '0',
      PLATFORM_API_KEY: key,
      DISPATCH_SIGNING_SECRET: 's'.repeat(40),
      GITHUB_API_URL: gh.url,
      POLL_INTERVAL_SECONDS: '3600',
    });
    try {
      const post = async (path: string, body: unknown) => {
        const res = await fetch(`${running.url}${path}`, {
          method: 'POST',
          headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
          body: JSON.stringify(body),
        });
        return { status: res.status, body: (await res.json()) as Record<string, unknown> };
      };
      const outcomes: Record<string, unknown> = {};
      for (const [toolId, input] of Object.entries(requiredOnly)) {
        // A connection per step: the code host's write spacing is per account.
        const connection = await post('/connections', { provider: 'github', token: 'ghp_localRuntimeStepsToken0000000000' });
        expect(connection.status).toBe(201);
        const result = await post(`/tools/${toolId}/invoke`, { connectionId: connection.body.id, input });
        outcomes[toolId] = result.status === 200 && result.body.ok === true ? 'ok' : result.body;
      }
      expect(
        Object.values(outcomes).every((o) => o === 'ok'),
        JSON.stringify(outcomes),
      ).toBe(true);
      expect(gh.problems).toEqual([]);
    } finally {
      expect(await running.stop()).toBe(0);
      await gh.close();
    }
  }, 120_000);

  it('token connection -> subscription -> hook at the code host -> signed delivery -> signed event at the agent runtime, once', async () => {
    const github = await FakeGitHub.start();
    const runtime = await FakeAgentRuntime.start();
    const token = 'github_pat_localE2E_00000000000000000000000000000000';
    github.addUser(token, 'Codertocat');
    // PUBLIC_URL goes into the hook, so the port is chosen before the runtime starts.
    const port = await freePort();
    const key = 'k'.repeat(40);
    const secret = 's'.repeat(40);
    const dataDir = mkdtempSync(join(tmpdir(), 'local-runtime-'));
    const running = await startLocalProcess({
      DATA_DIR: dataDir,
      PORT: String(port),
      PUBLIC_URL: `http://127.0.0.1:${port}`,
      PLATFORM_API_KEY: key,
      DISPATCH_SIGNING_SECRET: secret,
      GITHUB_API_URL: github.url,
      AGENT_RUNTIME_URL: runtime.url,
      POLL_INTERVAL_SECONDS: '3600',
    });
    try {
      const api = httpApiCaller(running.url, key);
      const connection = await api('POST', '/connections', { provider: 'github', token });
      expect(connection.status).toBe(201);
      const sub = await api('POST', '/subscriptions', {
        connectionId: connection.body.id,
        trigger: 'github.new_issue',
        agentId: 'triage-agent',
        repository: 'Codertocat/Hello-World',
      });
      expect(sub.status, JSON.stringify(sub.body)).toBe(201);
      const [hook] = github.hooksOf('repos/Codertocat/Hello-World');
      expect(hook?.config.url).toBe(`http://127.0.0.1:${port}/webhooks/github/${sub.body.endpointId}`);

      const payload = JSON.stringify(examplePayload('issues', 'opened'));
      expect((await github.deliver(hook!, 'issues', payload, 'local-e2e-1')).status).toBe(202);
      expect((await github.deliver(hook!, 'issues', payload, 'local-e2e-1')).status).toBe(200);
      const forged = await fetch(hook!.config.url, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'x-github-event': 'issues',
          'x-github-delivery': 'forged-1',
          'x-hub-signature-256': `sha256=${'0'.repeat(64)}`,
        },
        body: payload,
      });
      expect(forged.status).toBe(401);

      await until('the event at the agent runtime', () => runtime.requests.length > 0, 20_000);
      // The end state, not a pause: the runtime stopped with nothing left in its queue, so no
      // second delivery can still be on its way.
      expect(await running.stop()).toBe(0);
      const queues = openLocalQueues({ dir: join(dataDir, 'queues'), name: 'dispatch', clock: systemClock });
      try {
        expect({ queued: queues.queue.size(), deadLetters: queues.dlq.size() }).toEqual({ queued: 0, deadLetters: 0 });
      } finally {
        queues.close();
      }
      expect(runtime.requests).toHaveLength(1);
      expect(FakeAgentRuntime.signatureValid(runtime.requests[0]!, secret)).toBe(true);
      expect(FakeAgentRuntime.timestampedSignatureValid(runtime.requests[0]!, secret, Date.now())).toBe(true);
      expect(runtime.events()[0]).toMatchObject({
        trigger: 'github.new_issue',
        subscriptionId: sub.body.id,
        agentId: 'triage-agent',
        deliveryId: 'local-e2e-1',
      });
    } finally {
      expect(await running.stop()).toBe(0);
      await github.close();
      await runtime.close();
    }
  }, 90_000);
});
