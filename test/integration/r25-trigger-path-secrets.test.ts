import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { localJobs } from '../../local/jobs';
import { FakeAgentRuntime } from '../helpers/fake-agent-runtime';
import { FakeGitHub } from '../helpers/fake-github-server';
import { examplePayload, sign } from '../helpers/signed-delivery';
import { platformKey, signingSecret, startRuntime, subscribeOverApi, type TestRuntime } from '../helpers/runtime-support';

/**
 * RELIABILITY 25 on the trigger path, over HTTP on the local runtime: a token connection, a
 * subscription (hook and secret made at the code host), good, forged and duplicate
 * deliveries, an agent runtime refusing events. No token, hook secret, platform key or
 * signing secret may appear in a log line, an API answer, or a queued (so dead-letterable)
 * message; on disk, the secrets file holds them only encrypted.
 */
const token = 'ghp_r25SecretTokenValue0000000000000000000';
let github: FakeGitHub;
let agent: FakeAgentRuntime;
let rt: TestRuntime;
const answers: string[] = [];

beforeAll(async () => {
  github = await FakeGitHub.start();
  github.addUser(token, 'Codertocat');
  agent = await FakeAgentRuntime.start();
  rt = await startRuntime({ GITHUB_API_URL: github.url, AGENT_RUNTIME_URL: agent.url, LOG_LEVEL: 'DEBUG' }, false);
});
afterAll(async () => {
  await rt.dispose();
  await agent.close();
  await github.close();
});

function filesUnder(dir: string): string[] {
  return readdirSync(dir, { recursive: true })
    .map((f) => join(dir, String(f)))
    .filter((p) => statSync(p).isFile());
}

describe('R25: no secret on the trigger path', () => {
  it('R25: no token, hook secret, platform key or signing secret in logs, answers or queued messages', async () => {
    const { hook, endpointId, connectionId } = await subscribeOverApi(rt.url, github, token);
    const hookSecret = hook.config.secret!;
    expect(hookSecret.length).toBeGreaterThanOrEqual(32);
    const body = JSON.stringify(examplePayload('issues', 'opened'));
    answers.push(await (await github.deliver(hook, 'issues', body, 'r25-good')).text());
    answers.push(await (await github.deliver(hook, 'issues', body, 'r25-good')).text());
    const forged = await fetch(`${rt.url}/webhooks/github/${endpointId}`, {
      method: 'POST',
      headers: {
        'x-github-event': 'issues',
        'x-github-delivery': 'r25-forged',
        'x-hub-signature-256': sign('guessed-secret', body),
        'content-type': 'application/json',
      },
      body,
    });
    expect(forged.status).toBe(401);
    answers.push(await forged.text());
    for (const path of ['/connections', `/connections/${connectionId}`, '/subscriptions']) {
      answers.push(await (await fetch(`${rt.url}${path}`, { headers: { authorization: `Bearer ${platformKey}` } })).text());
    }
    const queued = rt.queues.queue.peek(10).map((m) => m.body);
    expect(queued).toHaveLength(1);
    // The agent runtime refuses the event: the failure is logged (and would end in the DLQ as queued).
    agent.answers.push({ status: 500, body: { error: 'nope' } });
    await localJobs(rt.ctx, rt.queues)[0]!.runOnce();
    expect(agent.requests).toHaveLength(1);

    const secrets = { token, hookSecret, platformKey, signingSecret };
    const journals = filesUnder(join(rt.dataDir, 'queues')).map((p) => readFileSync(p, 'utf8'));
    const secretFile = filesUnder(join(rt.dataDir, 'secrets')).map((p) => readFileSync(p, 'utf8'));
    // The scan covers the lines that matter: every step of the path logged something.
    const messages = rt.lines.map((l) => String((JSON.parse(l) as { message: string }).message));
    for (const m of [
      'connection created',
      'webhook delivery accepted',
      'duplicate delivery: already processed',
      'webhook delivery refused',
    ])
      expect(messages).toContain(m);
    expect(messages.some((m) => m.includes('will retry'))).toBe(true);
    for (const [name, value] of Object.entries(secrets)) {
      for (const line of rt.lines) expect(line.includes(value), `${name} in a log line`).toBe(false);
      for (const a of answers) expect(a.includes(value), `${name} in an answer`).toBe(false);
      for (const m of [...queued, ...journals]) expect(m.includes(value), `${name} in a queued message`).toBe(false);
      for (const f of secretFile) expect(f.includes(value), `${name} in clear in the secrets file`).toBe(false);
    }
  });
});
