import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { runTriggerCommand } from '../../local/cli/trigger';
import { startLocalRuntime, type LocalRuntime } from '../../local/runtime';
import { demo } from '../../local/sandbox/sandbox';

/** `npm run dev` plays the GitHub App fully: its webhook takes signed deliveries, and it refuses what the installation may not do. */
const key = 'sandbox-app-test-platform-key-0123456789abcdef';
let rt: LocalRuntime | undefined;
let dir: string | undefined;
afterEach(async () => {
  await rt?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
  rt = undefined;
  dir = undefined;
});

async function call(method: string, path: string, body?: unknown): Promise<{ status: number; body: any }> {
  const res = await fetch(`${rt?.url}${path}`, {
    method,
    headers: { authorization: `Bearer ${key}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: res.status, body: await res.json() };
}

it('npm run trigger reaches the App webhook (its secret is set), and a step the installation has no permission for is refused', async () => {
  dir = mkdtempSync(join(tmpdir(), 'sandbox-app-'));
  rt = await startLocalRuntime({
    env: { DATA_DIR: dir, PORT: '0', PLATFORM_API_KEY: key, POLL_INTERVAL_SECONDS: '3600', LOG_LEVEL: 'WARN' },
    write: () => {},
    sandbox: true,
  });
  const app = rt.sandbox?.demo.githubApp;
  expect(app?.authMethod).toBe('github_app');
  const sub = await call('POST', '/subscriptions', {
    connectionId: app?.id,
    trigger: 'github.new_issue',
    agentId: 'my-agent',
    repository: demo.repository,
  });
  expect(sub.status).toBe(201);
  const lines: string[] = [];
  const code = await runTriggerCommand(['github.new_issue', '--subscription', sub.body.id, '--url', rt.url], {
    env: { PLATFORM_API_KEY: key },
    out: (l) => lines.push(l),
  });
  expect(lines.join('\n')).toContain('The intake answered 202');
  expect(code).toBe(0);

  // The demo installation grants issues, contents, pull requests and metadata: not actions.
  const dispatch = await call('POST', '/tools/github.create_workflow_dispatch/invoke', {
    connectionId: app?.id,
    input: { owner: 'octocat', repo: 'hello-world', workflow_id: 'ci.yml', ref: 'main' },
  });
  expect(dispatch.body).toMatchObject({ ok: false, error: { code: 'forbidden' } });
  expect(JSON.stringify(dispatch.body)).toContain('Resource not accessible by integration');
}, 60_000);

it("an App connection made through the install flow still acts as its user after a restart (the simulated App's tokens are kept)", async () => {
  dir = mkdtempSync(join(tmpdir(), 'sandbox-app-'));
  const start = () =>
    startLocalRuntime({
      env: { DATA_DIR: dir as string, PORT: '0', PLATFORM_API_KEY: key, POLL_INTERVAL_SECONDS: '3600', LOG_LEVEL: 'WARN' },
      write: () => {},
      sandbox: true,
    });
  rt = await start();
  const begun = await call('POST', '/oauth/github-app/authorize', { label: 'clicked' });
  const first = await fetch(begun.body.authorizeUrl, { redirect: 'manual' });
  const cookie = (first.headers.get('set-cookie') ?? '').split(';')[0] ?? '';
  const page = await fetch(first.headers.get('location') ?? '', { redirect: 'manual' });
  const back = await fetch(page.headers.get('location') ?? '', { redirect: 'manual', headers: { cookie, accept: 'application/json' } });
  const made = (await back.json()) as { connectionId: string };
  const gist = () =>
    call('POST', '/tools/github.create_gist/invoke', {
      connectionId: made.connectionId,
      input: { files: { 'note.txt': { content: 'kept' } }, description: 'after a restart' },
    });
  expect((await gist()).body).toMatchObject({ ok: true });
  await rt.close();
  rt = await start();
  const again = await gist();
  expect(again.body).toMatchObject({ ok: true });
  expect((await call('GET', `/connections/${made.connectionId}`)).body).toMatchObject({ status: 'connected' });
}, 90_000);
