import { loadDotEnv } from './dotenv';
import { startLocalRuntime } from './runtime';
import { sandboxBanner } from './sandbox/banner';
import { startBanner } from './start-banner';

/** `npm start`: the local runtime on its embedded defaults. */
async function main(): Promise<void> {
  // Every file and directory the runtime (and the libraries it runs: LevelDB) creates is owner-only.
  process.umask(0o077);
  // `.env` in the working directory fills in what the real environment does not set.
  const dotenv = loadDotEnv(process.env);
  for (const p of dotenv.problems) process.stderr.write(`.env ${p}\n`);
  // The signal handlers come before anything a watcher may react to (the banner): a SIGTERM sent
  // the moment the banner appears must find them in place, or it kills the process outright.
  let runtime: Awaited<ReturnType<typeof startLocalRuntime>> | undefined;
  let stopping = false;
  const shutdown = (signal: string) => {
    // A second Ctrl-C does not wait for a slow shutdown.
    if (stopping) process.exit(130);
    stopping = true;
    process.stderr.write(`${signal}: shutting down\n`);
    // Still starting: the start below closes it as soon as it is up.
    if (runtime) closeAndExit(runtime);
  };
  process.on('SIGTERM', () => shutdown('SIGTERM'));
  process.on('SIGINT', () => shutdown('SIGINT'));

  // `npm run dev`: the sandbox (simulated back ends, demo connections, inbox).
  const sandbox = process.argv.includes('--sandbox');
  runtime = await startLocalRuntime({ sandbox });
  if (stopping) {
    closeAndExit(runtime);
    return;
  }
  const lines = startBanner(runtime);
  if (dotenv.loaded.length > 0) lines.push(`  .env:            ${dotenv.loaded.join(', ')}`);
  if (runtime.sandbox) lines.push(...sandboxBanner(runtime));
  process.stderr.write(`${lines.join('\n')}\n`);
}

function closeAndExit(runtime: { close(): Promise<void> }): void {
  runtime.close().then(
    () => process.exit(0),
    (e: unknown) => {
      process.stderr.write(`shutdown failed: ${String(e)}\n`);
      process.exit(1);
    },
  );
}

main().catch((e: unknown) => {
  process.stderr.write(`${e instanceof Error ? e.message : String(e)}\n`);
  process.exit(1);
});
