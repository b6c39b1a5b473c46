import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { runDoctor } from '../../local/cli/doctor';
import { startLocalRuntime, type LocalRuntime } from '../../local/runtime';

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

  it('warns that github.com cannot reach a localhost PUBLIC_URL, and says what to set', async () => {
    const { code, text } = await doctor({ PORT: '0', DATA_DIR: tempDir(), PUBLIC_URL: 'http://localhost:3000' });
    expect(code).toBe(0);
    expect(text).toMatch(/warn PUBLIC_URL http:\/\/localhost:3000 is not reachable from the Internet.*WEBHOOK_PROXY_URL/);
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
