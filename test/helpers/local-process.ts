import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { createServer } from 'node:net';

export interface RunningLocal {
  url: string;
  child: ChildProcess;
  output: () => string;
  /** Sends SIGTERM and resolves with the exit code. */
  stop(signal?: NodeJS.Signals): Promise<number | null>;
  /** SIGKILLs the child's whole process group (started with `detached`) and resolves once it is gone. */
  killGroup(): Promise<void>;
}

/**
 * Starts the local runtime as a user does (`tsx local/main.ts`, what `npm start` runs) in a
 * child process and waits for the line announcing its URL.
 */
export async function startLocalProcess(
  env: Record<string, string>,
  timeoutMs = 30_000,
  options: { detached?: boolean } = {},
): Promise<RunningLocal> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'local/main.ts'], {
    env: { ...process.env, AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true', LOG_LEVEL: 'WARN', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
    // Its own process group, so that a kill of the group takes everything it started.
    detached: options.detached ?? false,
  });
  let out = '';
  child.stdout?.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr?.on('data', (d: Buffer) => (out += d.toString()));
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`local runtime did not start in time:\n${out}`)), timeoutMs);
    const look = () => {
      const m = /running at (http:\/\/\S+)/.exec(out);
      if (m?.[1]) {
        clearTimeout(timer);
        resolve(m[1]);
      }
    };
    child.stderr?.on('data', look);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`local runtime exited with ${code}:\n${out}`));
    });
  });
  return {
    url,
    child,
    output: () => out,
    async stop(signal: NodeJS.Signals = 'SIGTERM') {
      if (child.exitCode !== null) return child.exitCode;
      child.kill(signal);
      const [code] = (await once(child, 'exit')) as [number | null];
      return code;
    },
    async killGroup() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = once(child, 'exit');
      process.kill(-child.pid!, 'SIGKILL');
      await exited;
    },
  };
}

/** A free loopback port, for runs whose PUBLIC_URL (hook and callback URLs) must be known before start. */
export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as { port: number };
  await new Promise<void>((r) => server.close(() => r()));
  return port;
}
