import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';

const key = 'sandbox-dev-e2e-key-0123456789abcdef';
const cleanup: Array<() => unknown> = [];
afterEach(async () => {
  for (const c of cleanup.splice(0).reverse()) await c();
});

interface Dev {
  child: ChildProcess;
  url: string;
  banner: string;
  stop(): Promise<number | null>;
}

/** `npm run dev` as a user starts it (`tsx local/main.ts --sandbox`), once its banner is printed. */
async function startDev(env: Record<string, string>): Promise<Dev> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'local/main.ts', '--sandbox'], {
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
  let err = '';
  child.stderr.on('data', (d: Buffer) => (err += d.toString()));
  child.stdout.resume();
  const stop = async () => {
    if (child.exitCode !== null) return child.exitCode;
    child.kill('SIGTERM');
    const [code] = (await once(child, 'exit')) as [number | null];
    return code;
  };
  cleanup.push(stop);
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`npm run dev did not print its banner:\n${err}`)), 60_000);
    const look = () => {
      // The banner's last line: the catalog command.
      if (err.includes('/triggers -H')) {
        clearTimeout(timer);
        resolve();
      }
    };
    child.stderr.on('data', look);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`npm run dev exited with ${code}:\n${err}`));
    });
  });
  const url = /running at (http:\/\/\S+)/.exec(err)?.[1] ?? '';
  return { child, url, banner: err, stop };
}

/** The JSON body of a curl command the banner prints after `-d`, e.g. the create_issue step's. */
function bannerBody(banner: string, after: string): unknown {
  const line = banner.split('\n').findIndex((l) => l.includes(after));
  const body = /-d '(.*)'/.exec(banner.split('\n')[line + 1] ?? '')?.[1];
  if (!body) throw new Error(`no -d body after ${after} in the banner:\n${banner}`);
  return JSON.parse(body);
}

async function post(dev: Dev, path: string, body: unknown): Promise<{ status: number; body: any }> {
  const res = await fetch(`${dev.url}${path}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  return { status: res.status, body: await res.json() };
}

describe('npm run dev: working in the sandbox as against a real account', () => {
  it('the banner commands create an issue and read it back, after a restart too, and subscribe once', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'sandbox-dev-'));
    cleanup.push(() => rmSync(dataDir, { recursive: true, force: true }));
    const first = await startDev({ DATA_DIR: dataDir });
    const created = await post(first, '/tools/github.create_issue/invoke', bannerBody(first.banner, '/tools/github.create_issue/invoke'));
    expect(created.body).toMatchObject({ ok: true, data: { title: 'From the sandbox' } });
    const readBack = bannerBody(first.banner, '/tools/github.api_call/invoke');
    const listed = await post(first, '/tools/github.api_call/invoke', readBack);
    expect(listed.body.data.data.map((i: { number: number }) => i.number)).toContain(created.body.data.number);
    const subscribe = bannerBody(first.banner, `${first.url}/subscriptions`);
    expect((await post(first, '/subscriptions', subscribe)).status).toBe(201);
    const client = await post(first, '/tools/contentsnare.create_client/invoke', bannerBody(first.banner, 'contentsnare.create_client'));
    expect(client.body.ok).toBe(true);
    expect(await first.stop()).toBe(0);

    const second = await startDev({ DATA_DIR: dataDir });
    const again = await post(second, '/tools/github.api_call/invoke', readBack);
    expect(again.body.data.data.find((i: { number: number }) => i.number === created.body.data.number)).toMatchObject({
      title: 'From the sandbox',
    });
    // Pasting the banner's subscribe command again after the restart answers the subscription made before.
    const same = await post(second, '/subscriptions', bannerBody(second.banner, `${second.url}/subscriptions`));
    expect(same.status).toBe(200);
    expect(same.body.existing).toBe(true);
  });

  it('a second npm run dev on the same data dir refuses in one line, naming the pid', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'sandbox-dev-'));
    cleanup.push(() => rmSync(dataDir, { recursive: true, force: true }));
    const first = await startDev({ DATA_DIR: dataDir });
    const child = spawn(process.execPath, ['--import', 'tsx', 'local/main.ts', '--sandbox'], {
      env: {
        ...process.env,
        AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
        LOG_LEVEL: 'WARN',
        PLATFORM_API_KEY: key,
        PORT: '0',
        DATA_DIR: dataDir,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr.on('data', (d: Buffer) => (out += d.toString()));
    const [code] = (await once(child, 'exit')) as [number | null];
    expect(code).not.toBe(0);
    expect(out.trim()).toBe(`the data directory ${dataDir} is in use by pid ${first.child.pid}; set DATA_DIR to run another`);
  });
});
