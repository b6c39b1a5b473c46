import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { platformKey, signingSecret } from '../../test/helpers/runtime-support';

export interface ProductProcess {
  url: string;
  child: ChildProcess;
  /** Log lines and bytes the product wrote to stdout (read and dropped, as a terminal would). */
  logs: { lines: number; bytes: number };
  /** SIGTERM (the product's own shutdown), then the data dir removed. */
  stop(): Promise<number | null>;
}

/**
 * The product as a user runs it: `tsx local/main.ts` (what `npm start` runs) in its own
 * process on a temp DATA_DIR, default log level (INFO) unless `env` says otherwise. Its
 * stdout is read and dropped as it comes, like a terminal; lines are counted.
 * BENCH_PROFILE_DIR profiles it (`node --cpu-prof`, the profile written at exit).
 */
export async function startProductProcess(env: Record<string, string>): Promise<ProductProcess> {
  const dataDir = mkdtempSync(join(tmpdir(), 'bench-product-'));
  const profileDir = process.env.BENCH_PROFILE_DIR;
  // The default log level is the product's own (INFO), not whatever this shell exported.
  const { LOG_LEVEL: _ignored, ...inherited } = process.env;
  // --cpu-prof is refused in NODE_OPTIONS: passed as an argument.
  const profile = profileDir ? ['--cpu-prof', `--cpu-prof-dir=${profileDir}`] : [];
  const child = spawn(process.execPath, [...profile, '--import', 'tsx', 'local/main.ts'], {
    cwd: join(import.meta.dirname, '..', '..'),
    env: {
      ...inherited,
      AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
      DATA_DIR: dataDir,
      PORT: '0',
      PLATFORM_API_KEY: platformKey,
      DISPATCH_SIGNING_SECRET: signingSecret,
      POLL_INTERVAL_SECONDS: '3600',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const logs = { lines: 0, bytes: 0 };
  child.stdout!.on('data', (d: Buffer) => {
    logs.bytes += d.length;
    for (let i = d.indexOf(10); i >= 0; i = d.indexOf(10, i + 1)) logs.lines++;
  });
  let err = '';
  const url = await new Promise<string>((resolve, reject) => {
    child.stderr!.on('data', (d: Buffer) => {
      err += d.toString();
      const m = /running at (http:\/\/\S+)/.exec(err);
      if (m?.[1]) resolve(m[1].replace('localhost', '127.0.0.1'));
    });
    child.once('exit', (code) => reject(new Error(`the product exited with ${code}:\n${err}`)));
  });
  return {
    url,
    child,
    logs,
    async stop() {
      let code = child.exitCode;
      if (code === null) {
        const exited = new Promise<number | null>((r) => child.once('exit', (c) => r(c)));
        child.kill('SIGTERM');
        code = await exited;
      }
      rmSync(dataDir, { recursive: true, force: true });
      return code;
    },
  };
}
