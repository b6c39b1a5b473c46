import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { runDoctor } from '../../local/cli/doctor';
import { startLocalRuntime, type LocalRuntime } from '../../local/runtime';
import { FakeGitHub } from '../helpers/fake-github-server';
import { httpApiCaller } from '../helpers/platform-api-caller';

const key = 'doctor-test-platform-key-0123456789abcdef';
const cleanup: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const c of cleanup.splice(0).reverse()) await c();
});

function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'doctor-'));
  cleanup.push(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

async function doctor(
  env: Record<string, string>,
  extra: { nodeVersion?: string; cwd?: string } = {},
): Promise<{ code: number; text: string }> {
  const lines: string[] = [];
  const code = await runDoctor({ env, out: (l) => lines.push(l), cwd: extra.cwd ?? tempDir(), nodeVersion: extra.nodeVersion });
  return { code, text: lines.join('\n') };
}

describe('npm run doctor', () => {
  it('fails, naming the variable, on PORT=abc, an old Node, a bad .env line and a malformed variable', async () => {
    const cwd = tempDir();
    writeFileSync(join(cwd, '.env'), 'GITHUB_API_URL=not a url\nthis is not a pair\n');
    const { code, text } = await doctor({ PORT: 'abc', DATA_DIR: tempDir() }, { nodeVersion: '18.19.0', cwd });
    expect(code).toBe(1);
    expect(text).toContain('FAIL Node 18.19.0: Node 20 or newer is needed');
    expect(text).toContain('FAIL PORT: "abc" is not a port number');
    expect(text).toMatch(/FAIL \.env: .*line 2: expected KEY=value/);
    expect(text).toMatch(/FAIL configuration: .*GITHUB_API_URL/);
  });

  it('says clearly when no runtime is running, and that nothing of it was checked', async () => {
    const { createServer } = await import('node:net');
    const probe = createServer();
    await new Promise<void>((r) => probe.listen(0, '127.0.0.1', r));
    const port = (probe.address() as { port: number }).port;
    await new Promise<void>((r) => probe.close(() => r()));
    const { code, text } = await doctor({ PORT: String(port), DATA_DIR: tempDir(), PUBLIC_URL: 'http://localhost:3000' });
    expect(code).toBe(0);
    expect(text).toContain(`warn runtime: none is running on port ${port}, so nothing of it was checked`);
    expect(text).not.toMatch(/^\w+ +PUBLIC_URL/m);
  });

  it("reports the running runtime's own view: github.com cannot reach its localhost PUBLIC_URL, whatever this shell says", async () => {
    const dataDir = tempDir();
    const rt: LocalRuntime = await startLocalRuntime({
      env: {
        DATA_DIR: dataDir,
        PORT: '0',
        PLATFORM_API_KEY: key,
        LOG_LEVEL: 'WARN',
        GITHUB_CLIENT_ID: 'Iv1.doctor',
        GITHUB_CLIENT_SECRET: 's'.repeat(40),
      },
      write: () => {},
    });
    cleanup.push(() => rt.close());
    const port = new URL(rt.url).port;
    // The shell has neither the client id nor the runtime's PUBLIC_URL: the report is the runtime's.
    const { code, text } = await doctor({ PORT: port, DATA_DIR: dataDir, PLATFORM_API_KEY: key });
    expect(text).toContain(`ok   runtime: running at http://localhost:${port} (port ${port})`);
    expect(text).toMatch(/warn PUBLIC_URL http:\/\/(localhost|127\.0\.0\.1):\d+ is not reachable from the Internet.*WEBHOOK_PROXY_URL/);
    expect(text).toContain('info GitHub: https://api.github.com; OAuth configured');
    expect(text).toMatch(/info Content Snare: .*; OAuth not configured \(CONTENTSNARE_CLIENT_ID\/CONTENTSNARE_CLIENT_SECRET\)/);
    expect(text).toContain('info connections: none yet');
    expect(code, text).toBe(0);
  });

  it('finds the running runtime on PORT, lists its connections and their scopes, and passes', async () => {
    const dataDir = tempDir();
    const rt: LocalRuntime = await startLocalRuntime({
      env: { DATA_DIR: dataDir, PORT: '0', PLATFORM_API_KEY: key, LOG_LEVEL: 'WARN' },
      write: () => {},
      sandbox: true,
    });
    cleanup.push(() => rt.close());
    const port = new URL(rt.url).port;
    const { code, text } = await doctor({ PORT: port, DATA_DIR: dataDir, PLATFORM_API_KEY: key });
    expect(text).toContain(`ok   port ${port}: a runtime is already running there`);
    expect(text).toMatch(new RegExp(`ok   connection ${rt.sandbox!.demo.github.id} \\(github, octocat\\): scopes repo, admin:repo_hook`));
    expect(text).toContain('ok   platform key: from PLATFORM_API_KEY');
    expect(code, text).toBe(0);
  });

  it('fails on a port another program holds', async () => {
    const { createServer } = await import('node:net');
    // Another program: it takes connections and hangs up without a word.
    const other = createServer((socket) => socket.destroy());
    await new Promise<void>((r) => other.listen(0, '127.0.0.1', r));
    cleanup.push(() => new Promise<void>((r) => other.close(() => r())));
    const port = (other.address() as { port: number }).port;
    const { code, text } = await doctor({ PORT: String(port), DATA_DIR: tempDir() });
    expect(code).toBe(1);
    expect(text).toContain(`FAIL PORT: ${port} is in use by another program`);
  });
});

describe("npm run doctor: a connection's token against what its subscriptions and steps need", () => {
  const classic = 'ghp_doctorclassic0123456789abcdefghijklmnop';
  const fineGrained = 'github_pat_11DOCTOR0fine0grained0123456789abcdefghijklmnop';

  /**
   * The code host as a fine-grained token sees it: GitHub reports no `X-OAuth-Scopes` for
   * such a token, and names the permission a refusal lacks in `X-Accepted-GitHub-Permissions`
   * ("Troubleshooting the REST API"). A relay in front of the fake code host, for that token only.
   */
  async function fineGrainedView(github: FakeGitHub): Promise<string> {
    const server = createServer(async (req, res) => {
      const chunks: Buffer[] = [];
      for await (const c of req) chunks.push(c as Buffer);
      const upstream = await fetch(`${github.url}${req.url}`, {
        method: req.method,
        headers: Object.fromEntries(Object.entries(req.headers).filter(([k]) => k !== 'host' && k !== 'connection')) as Record<
          string,
          string
        >,
        body: chunks.length > 0 ? Buffer.concat(chunks) : undefined,
      });
      const headers = Object.fromEntries(upstream.headers);
      delete headers['content-encoding'];
      delete headers['content-length'];
      const fine = String(req.headers.authorization ?? '').endsWith(fineGrained);
      if (fine) delete headers['x-oauth-scopes'];
      if (fine && upstream.status === 403 && /\/hooks/.test(req.url ?? ''))
        headers['x-accepted-github-permissions'] = 'repository_hooks=read';
      res.writeHead(upstream.status, headers);
      res.end(Buffer.from(await upstream.arrayBuffer()));
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    cleanup.push(() => new Promise<void>((r) => server.close(() => r())));
    return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  }

  async function runtimeOver(apiUrl: string) {
    const dataDir = tempDir();
    const rt = await startLocalRuntime({
      env: {
        DATA_DIR: dataDir,
        PORT: '0',
        PLATFORM_API_KEY: key,
        LOG_LEVEL: 'WARN',
        GITHUB_API_URL: apiUrl,
        POLL_INTERVAL_SECONDS: '3600',
      },
      write: () => {},
      background: false,
    });
    cleanup.push(() => rt.close());
    const url = rt.url.replace('localhost', '127.0.0.1');
    const api = httpApiCaller(url, key);
    return { port: new URL(url).port, dataDir, api };
  }

  async function fakeCodeHost(): Promise<FakeGitHub> {
    const github = await FakeGitHub.start();
    cleanup.push(() => github.close());
    github.addUser(classic, 'octocat');
    github.addUser(fineGrained, 'monalisa');
    return github;
  }

  it('names the scope a classic token lacks for an organization subscription, and the steps it cannot run', async () => {
    const github = await fakeCodeHost();
    const { port, dataDir, api } = await runtimeOver(github.url);
    const connection = (await api('POST', '/connections', { provider: 'github', token: classic })).body;
    const sub = await api('POST', '/subscriptions', {
      connectionId: connection.id,
      trigger: 'github.new_issue',
      agentId: 'agent',
      organization: 'octo-org',
    });
    expect(sub.status, JSON.stringify(sub.body)).toBe(201);
    const { text } = await doctor({ PORT: port, DATA_DIR: dataDir, PLATFORM_API_KEY: key });
    expect(text).toContain(
      `warn connection ${connection.id} (github, octocat): subscription ${sub.body.id} (github.new_issue on organization octo-org) needs the scope admin:org_hook, which the token lacks (it has: repo, admin:repo_hook)`,
    );
    expect(text).toMatch(new RegExp(`info connection ${connection.id} .*steps this token cannot run.*github\\.create_gist \\(gist\\)`));
  });

  it('names the permission a fine-grained token is refused on a subscribed repository, and says what it cannot check', async () => {
    const github = await fakeCodeHost();
    const { port, dataDir, api } = await runtimeOver(await fineGrainedView(github));
    const connection = (await api('POST', '/connections', { provider: 'github', token: fineGrained })).body;
    const sub = await api('POST', '/subscriptions', {
      connectionId: connection.id,
      trigger: 'github.new_issue',
      agentId: 'agent',
      repository: 'octo-org/hello-world',
    });
    expect(sub.status, JSON.stringify(sub.body)).toBe(201);
    // The token loses the repository's Webhooks permission after the hook was made.
    github.refuseHooks.set('repos/octo-org/hello-world', 403);
    const { text } = await doctor({ PORT: port, DATA_DIR: dataDir, PLATFORM_API_KEY: key });
    expect(text).toContain(`info connection ${connection.id} (github, monalisa): no scopes reported (a fine-grained or App token)`);
    expect(text).toContain(
      `warn connection ${connection.id} (github, monalisa): subscription ${sub.body.id} (github.new_issue on octo-org/hello-world) needs Repository: Webhooks (Read and write): GET /repos/octo-org/hello-world/hooks was refused (forbidden; the code host asks for repository_hooks=read)`,
    );

    github.refuseHooks.clear();
    const healthy = await doctor({ PORT: port, DATA_DIR: dataDir, PLATFORM_API_KEY: key });
    expect(healthy.text).toContain('reading works; writing cannot be checked without writing');
    expect(healthy.text).not.toContain(`warn connection ${connection.id}`);
  });
});
