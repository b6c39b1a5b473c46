import { spawn, spawnSync } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startLocalProcess, type RunningLocal } from '../helpers/local-process';

const key = 'lock-test-platform-key-0123456789abcdef';
const cleanup: Array<() => unknown> = [];
afterEach(async () => {
  for (const c of cleanup.splice(0).reverse()) await c();
});

function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'datadir-lock-'));
  cleanup.push(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

async function started(env: Record<string, string>): Promise<RunningLocal> {
  const rt = await startLocalProcess({ PLATFORM_API_KEY: key, PORT: '0', ...env });
  cleanup.push(() => rt.stop());
  return rt;
}

/** `npm start` expected to refuse: its exit code and everything it printed. */
async function refusedStart(env: Record<string, string>): Promise<{ code: number | null; out: string }> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'local/main.ts'], {
    env: {
      ...process.env,
      AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
      LOG_LEVEL: 'WARN',
      PLATFORM_API_KEY: key,
      PORT: '0',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr.on('data', (d: Buffer) => (out += d.toString()));
  const [code] = (await once(child, 'exit')) as [number | null];
  return { code, out };
}

/**
 * A process killed and not yet reaped: a shell starts a short child in the background and
 * becomes `sleep`, which never waits for children, so the child stays a zombie (state Z)
 * until the sleep ends. What a runtime killed with SIGKILL is while its parent (a shell, a
 * supervisor, a test) has not reaped it yet.
 */
async function zombiePid(): Promise<number> {
  const parent = spawn('sh', ['-c', 'sleep 0.05 & echo $!; exec sleep 60'], { stdio: ['ignore', 'pipe', 'ignore'] });
  cleanup.push(() => parent.kill('SIGKILL'));
  const [line] = (await once(parent.stdout, 'data')) as [Buffer];
  const pid = Number(line.toString().trim());
  for (let i = 0; i < 200; i++) {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    if (
      stat
        .slice(stat.lastIndexOf(')') + 1)
        .trim()
        .startsWith('Z')
    )
      return pid;
    await new Promise((r) => setTimeout(r, 10));
  }
  throw new Error(`pid ${pid} did not become a zombie`);
}

/** The pid of a process that has exited: what a runtime killed with SIGKILL leaves in its lock. */
function deadPid(): number {
  const child = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))']);
  return Number(child.stdout.toString());
}

describe('one runtime per data directory', () => {
  it('a second runtime on the same data dir refuses in one line naming the pid and DATA_DIR, and the first keeps running', async () => {
    const dataDir = tempDir();
    const first = await started({ DATA_DIR: dataDir });
    const { code, out } = await refusedStart({ DATA_DIR: dataDir });
    expect(code).not.toBe(0);
    expect(out.trim()).toBe(`the data directory ${dataDir} is in use by pid ${first.child.pid}; set DATA_DIR to run another`);
    expect(out).not.toContain('Database is closed');
    const health = await fetch(`${first.url}/healthz`);
    expect(health.status).toBe(200);
  });

  it('two runtimes with their own data dirs and ports run side by side', async () => {
    const a = await started({ DATA_DIR: tempDir() });
    const b = await started({ DATA_DIR: tempDir() });
    expect(a.url).not.toBe(b.url);
    for (const rt of [a, b]) {
      const res = await fetch(`${rt.url}/connections`, { headers: { authorization: `Bearer ${key}` } });
      expect(res.status).toBe(200);
    }
  });

  it('the lock holds the pid while running and is released on a clean shutdown', async () => {
    const dataDir = tempDir();
    const rt = await started({ DATA_DIR: dataDir });
    expect(readFileSync(join(dataDir, 'runtime.lock'), 'utf8').trim()).toBe(String(rt.child.pid));
    expect(await rt.stop()).toBe(0);
    expect(existsSync(join(dataDir, 'runtime.lock'))).toBe(false);
    const again = await started({ DATA_DIR: dataDir });
    expect((await fetch(`${again.url}/healthz`)).status).toBe(200);
  });

  it('a stale lock left by a dead pid is taken over', async () => {
    const dataDir = tempDir();
    writeFileSync(join(dataDir, 'runtime.lock'), `${deadPid()}\n`);
    const rt = await started({ DATA_DIR: dataDir });
    expect(readFileSync(join(dataDir, 'runtime.lock'), 'utf8').trim()).toBe(String(rt.child.pid));
  });

  it.runIf(existsSync('/proc/self/stat'))(
    'a lock naming a killed process its parent has not reaped yet (a zombie) is taken over',
    async () => {
      const dataDir = tempDir();
      const zombie = await zombiePid();
      // The zombie still answers signal 0: the old check took it for a live runtime.
      expect(() => process.kill(zombie, 0)).not.toThrow();
      writeFileSync(join(dataDir, 'runtime.lock'), `${zombie}\n`);
      const rt = await started({ DATA_DIR: dataDir });
      expect(readFileSync(join(dataDir, 'runtime.lock'), 'utf8').trim()).toBe(String(rt.child.pid));
      expect((await fetch(`${rt.url}/healthz`)).status).toBe(200);
    },
  );
});
