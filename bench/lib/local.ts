import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startLocalRuntime, type LocalRuntime } from '../../local/runtime';

/**
 * The product as `npm start` runs it (embedded DynamoDB on disk, file queue, in-process
 * consumer) in a temp data dir, logs dropped, posting trigger events to `agentRuntimeUrl`.
 */
export async function startBenchRuntime(
  agentRuntimeUrl?: string,
  background = true,
): Promise<LocalRuntime & { dataDir: string; dispose(): Promise<void> }> {
  const dataDir = mkdtempSync(join(tmpdir(), 'bench-runtime-'));
  const runtime = await startLocalRuntime({
    env: {
      DATA_DIR: dataDir,
      PORT: '0',
      PLATFORM_API_KEY: 'bench-platform-key-0123456789abcdef0123456789',
      DISPATCH_SIGNING_SECRET: 'bench-dispatch-secret-0123456789abcdef0123',
      AGENT_RUNTIME_URL: agentRuntimeUrl ?? '',
      POLL_INTERVAL_SECONDS: '3600',
      LOG_LEVEL: 'ERROR',
    },
    write: () => undefined,
    background,
  });
  return {
    ...runtime,
    url: runtime.url.replace('localhost', '127.0.0.1'),
    dataDir,
    async dispose() {
      await runtime.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
