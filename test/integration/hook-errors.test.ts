import { createServer } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { AppError } from '../../shared/domain/errors';
import { createSubscription } from '../../shared/subscriptions/create-subscription';
import { ensureHook } from '../../shared/providers/github/subscriptions/endpoint-hook';
import { stopTestDynamo } from '../helpers/dynamo';
import { FakeGitHub } from '../helpers/fake-github-server';
import { testContext, type TestContext } from '../helpers/test-context';

const token = 'ghp_hookErrorsTestToken00000000000000000';
let github: FakeGitHub;
beforeAll(async () => {
  github = await FakeGitHub.start();
  github.addUser(token, 'octocat');
});
afterAll(async () => {
  await github.close();
  await stopTestDynamo();
});
const open: TestContext[] = [];
afterEach(() => {
  for (const t of open.splice(0)) t.close();
  github.hooks.clear();
  github.refuseHooks.clear();
  github.refusePrivateHookUrls = false;
});

async function setup(env: Record<string, string>) {
  const t = await testContext(env);
  open.push(t);
  const connection = await t.connect({}, token);
  return { t, connection };
}

async function failure(p: Promise<unknown>): Promise<AppError> {
  const e = await p.then(
    () => undefined,
    (x: unknown) => x,
  );
  expect(e).toBeInstanceOf(AppError);
  return e as AppError;
}

describe('creating the code-host webhook', () => {
  it('refuses a loopback PUBLIC_URL before calling a public code host, saying what to set', async () => {
    let calls = 0;
    const { t, connection } = await setup({ GITHUB_API_URL: 'https://api.github.com', PUBLIC_URL: 'http://localhost:3000' });
    t.ctx.fetch = async () => {
      calls++;
      throw new Error('no call expected');
    };
    const e = await failure(
      createSubscription(t.ctx, { connectionId: connection.id, trigger: 'github.new_issue', agentId: 'a', repository: 'octocat/hello' }),
    );
    expect(e.code).toBe('public_url_unreachable');
    expect(e.message).toContain('PUBLIC_URL');
    expect(e.message).toContain('WEBHOOK_PROXY_URL');
    expect(e.message).toContain('localhost');
    expect(calls).toBe(0);
  });

  it('refuses private and loopback addresses in any spelling, and lets a public URL through', async () => {
    for (const url of [
      'http://127.0.0.1:3000',
      'http://10.1.2.3',
      'http://192.168.0.5:8080',
      'http://[::1]:3000',
      'http://my-laptop.local:3000',
      'http://172.20.0.1',
    ]) {
      const { t, connection } = await setup({ GITHUB_API_URL: 'https://api.github.com', PUBLIC_URL: url });
      const e = await failure(ensureHook(t.ctx, connection, { kind: 'repository', repository: 'octocat/hello' }, 'github.new_issue'));
      expect(e.code, url).toBe('public_url_unreachable');
    }
    // A public URL goes on to the code host (which this test has not: the call itself fails).
    const { t, connection } = await setup({ GITHUB_API_URL: 'https://api.github.com', PUBLIC_URL: 'https://abc.ngrok.app' });
    t.ctx.fetch = async () => {
      throw new TypeError('fetch failed', {
        cause: Object.assign(new Error('connect ECONNREFUSED 203.0.113.9:443'), { code: 'ECONNREFUSED' }),
      });
    };
    const e = await failure(ensureHook(t.ctx, connection, { kind: 'repository', repository: 'octocat/hello' }, 'github.new_issue'));
    expect(e.code).toBe('upstream_error');
    // The network cause is in the message, not a bare "TypeError".
    expect(e.message).toContain('ECONNREFUSED');
  });

  it("passes on the code host's own 422 reasons (errors[]), not a bare upstream_error", async () => {
    // A code host on loopback (an enterprise server in a lab, a fake) may reach a loopback hook URL: not refused here.
    const { t, connection } = await setup({ GITHUB_API_URL: github.url, PUBLIC_URL: 'http://localhost:3000' });
    github.refusePrivateHookUrls = true;
    const e = await failure(ensureHook(t.ctx, connection, { kind: 'repository', repository: 'octocat/hello' }, 'github.new_issue'));
    expect(e.code).toBe('invalid_input');
    expect(e.message).toContain('Validation Failed');
    expect(e.message).toContain("isn't reachable over the public Internet");
    expect(e.details?.errors).toBeDefined();
  });

  it('reports a 404 as not found or not visible, not as a certain missing permission', async () => {
    const { t, connection } = await setup({ GITHUB_API_URL: github.url, PUBLIC_URL: 'https://hooks.example.test' });
    github.refuseHooks.set('repos/octocat/gone', 404);
    const e = await failure(ensureHook(t.ctx, connection, { kind: 'repository', repository: 'octocat/gone' }, 'github.new_issue'));
    expect(e.code).toBe('not_found');
    expect(e.message).toContain('not found or not visible to this connection');
    expect(e.message).not.toMatch(/^.*Missing permission:/);
  });

  it('names the network cause when the code host cannot be reached', async () => {
    const server = createServer();
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const { port } = server.address() as { port: number };
    await new Promise<void>((r) => server.close(() => r()));
    const { t, connection } = await setup({ GITHUB_API_URL: `http://127.0.0.1:${port}`, PUBLIC_URL: 'https://hooks.example.test' });
    const e = await failure(ensureHook(t.ctx, connection, { kind: 'repository', repository: 'octocat/hello' }, 'github.new_issue'));
    expect(e.code).toBe('upstream_error');
    expect(e.message).toContain('ECONNREFUSED');
  });

  it('registers the hook at WEBHOOK_PROXY_URL (endpoint in the query) when it is set', async () => {
    const { t, connection } = await setup({
      GITHUB_API_URL: github.url,
      PUBLIC_URL: 'http://localhost:3000',
      WEBHOOK_PROXY_URL: 'https://smee.io/abc123',
    });
    github.refusePrivateHookUrls = true;
    const endpoint = await ensureHook(t.ctx, connection, { kind: 'repository', repository: 'octocat/hello' }, 'github.new_issue');
    expect(github.hooksOf('repos/octocat/hello')[0]!.config.url).toBe(`https://smee.io/abc123?endpoint=${endpoint.id}`);
  });
});
