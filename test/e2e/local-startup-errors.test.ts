import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { freePort, startLocalProcess, type RunningLocal } from '../helpers/local-process';

const key = 'startup-test-platform-key-0123456789abcdef';
// tsx as an absolute URL: a child started in another working directory must still find it.
const tsx = pathToFileURL(createRequire(import.meta.url).resolve('tsx')).href;
const cleanup: Array<() => unknown> = [];
afterEach(async () => {
  for (const c of cleanup.splice(0).reverse()) await c();
});

function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'startup-'));
  cleanup.push(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

/** `npm start` expected to refuse: its exit code and what it printed. */
async function failedStart(env: Record<string, string>, cwd = process.cwd()): Promise<{ code: number | null; out: string }> {
  const child = spawn(process.execPath, ['--import', tsx, join(process.cwd(), 'local/main.ts')], {
    cwd,
    env: { ...process.env, AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true', LOG_LEVEL: 'WARN', PLATFORM_API_KEY: key, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr.on('data', (d: Buffer) => (out += d.toString()));
  const [code] = (await once(child, 'exit')) as [number | null];
  return { code, out };
}

async function started(env: Record<string, string>): Promise<RunningLocal> {
  const rt = await startLocalProcess({ PLATFORM_API_KEY: key, ...env });
  cleanup.push(() => rt.stop());
  return rt;
}

describe('npm start: configuration errors and signals', () => {
  it('PORT=abc is a clear config error naming PORT, exit 1', async () => {
    const { code, out } = await failedStart({ PORT: 'abc', DATA_DIR: tempDir() });
    expect(code).toBe(1);
    expect(out).toContain('Invalid configuration:');
    expect(out).toContain('PORT: "abc" is not a port number');
  });

  it('a port in use is a clear config error naming PORT, exit 1', async () => {
    const port = await freePort();
    await started({ PORT: String(port), DATA_DIR: tempDir() });
    const { code, out } = await failedStart({ PORT: String(port), DATA_DIR: tempDir() });
    expect(code).toBe(1);
    expect(out).toContain(`PORT: ${port} is already in use`);
  });

  it.each(['SIGTERM', 'SIGINT'] as const)('%s frees the port: the runtime starts again on the same port', async (signal) => {
    const port = await freePort();
    const dataDir = tempDir();
    const first = await startLocalProcess({ PLATFORM_API_KEY: key, PORT: String(port), DATA_DIR: dataDir });
    expect(await first.stop(signal)).toBe(0);
    const second = await started({ PORT: String(port), DATA_DIR: dataDir });
    expect(second.url).toBe(`http://127.0.0.1:${port}`);
    expect((await fetch(`${second.url}/healthz`)).status).toBe(200);
  });

  it('reads .env from the working directory; the real environment wins', async () => {
    const cwd = tempDir();
    const port = await freePort();
    writeFileSync(
      join(cwd, '.env'),
      `PORT=${port}\nDATA_DIR=${join(cwd, 'data')}\nPLATFORM_API_KEY=from-dotenv-is-overridden-0123456789abcdef\n`,
    );
    const env: Record<string, string | undefined> = {
      ...process.env,
      AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
      LOG_LEVEL: 'WARN',
      PLATFORM_API_KEY: key,
    };
    delete env.PORT;
    delete env.DATA_DIR;
    const child = spawn(process.execPath, ['--import', tsx, join(process.cwd(), 'local/main.ts')], {
      cwd,
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    cleanup.push(async () => {
      if (child.exitCode === null) {
        child.kill('SIGTERM');
        await once(child, 'exit');
      }
    });
    let out = '';
    child.stderr.on('data', (d: Buffer) => (out += d.toString()));
    await new Promise<void>((resolve, reject) => {
      const check = () => (/\.env:\s+.*DATA_DIR/.test(out) ? resolve() : undefined);
      child.stderr.on('data', check);
      child.once('exit', () => reject(new Error(out)));
    });
    expect(out).toContain(`running at http://127.0.0.1:${port}`);
    const res = await fetch(`http://127.0.0.1:${port}/connections`, { headers: { authorization: `Bearer ${key}` } });
    expect(res.status).toBe(200);
  });
});
