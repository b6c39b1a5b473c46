import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { FakeAgentRuntime } from '../helpers/fake-agent-runtime';
import { FakeGitHub } from '../helpers/fake-github-server';
import { freePort, startLocalProcess } from '../helpers/local-process';
import { examplePayload } from '../helpers/signed-delivery';
import { until } from '../helpers/runtime-support';
import { httpApiCaller } from '../helpers/platform-api-caller';

describe('npm start: a Projects (v2) delivery', () => {
  it('a signed projects_v2_item.edited delivery to an organization hook reaches the agent runtime as project_item_status_changed', async () => {
    const github = await FakeGitHub.start();
    const runtime = await FakeAgentRuntime.start();
    const token = 'github_pat_localProjects_000000000000000000000000000000';
    github.addUser(token, 'wolfy1339');
    const port = await freePort();
    const key = 'k'.repeat(40);
    const secret = 's'.repeat(40);
    const running = await startLocalProcess({
      DATA_DIR: mkdtempSync(join(tmpdir(), 'local-projects-')),
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
        trigger: 'github.project_item_status_changed',
        agentId: 'board-agent',
        organization: 'Octocoders',
      });
      expect(sub.status, JSON.stringify(sub.body)).toBe(201);
      const [hook] = github.hooksOf('orgs/Octocoders');
      expect(hook?.events).toContain('projects_v2_item');

      const payload = JSON.stringify(examplePayload('projects_v2_item', 'edited'));
      const delivered = await github.deliver(hook!, 'projects_v2_item', payload, 'local-projects-1');
      expect(delivered.status, await delivered.clone().text()).toBe(202);

      await until('the event at the agent runtime', () => runtime.requests.length > 0, 20_000);
      expect(runtime.events()[0]).toMatchObject({
        trigger: 'github.project_item_status_changed',
        subscriptionId: sub.body.id,
        agentId: 'board-agent',
        deliveryId: 'local-projects-1',
      });
      expect(FakeAgentRuntime.signatureValid(runtime.requests[0]!, secret)).toBe(true);
    } finally {
      expect(await running.stop()).toBe(0);
      await github.close();
      await runtime.close();
    }
  }, 90_000);
});
