import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startLocalRuntime, type LocalRuntime } from '../../local/runtime';
import type { FakeGitHub, FakeHook } from './fake-github-server';
import { httpApiCaller } from './platform-api-caller';

export const platformKey = 'reliability-platform-key-0123456789abcdef';
export const signingSecret = 'reliability-dispatch-secret-0123456789ab';
export const repository = 'Codertocat/Hello-World';

/** Polls `check` until it holds (events cross a queue and a consumer loop); throws with `what` after `timeoutMs`. */
export async function until(what: string, check: () => boolean | Promise<boolean>, timeoutMs = 15_000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

export type TestRuntime = LocalRuntime & { dataDir: string; lines: string[]; dispose(): Promise<void> };

/** The local runtime in-process on a fresh data dir, its log lines captured. */
export async function startRuntime(env: Record<string, string> = {}, background = true): Promise<TestRuntime> {
  const dataDir = mkdtempSync(join(tmpdir(), 'reliability-'));
  const lines: string[] = [];
  const rt = await startLocalRuntime({
    env: {
      DATA_DIR: dataDir,
      PORT: '0',
      PLATFORM_API_KEY: platformKey,
      DISPATCH_SIGNING_SECRET: signingSecret,
      POLL_INTERVAL_SECONDS: '3600',
      LOG_LEVEL: 'INFO',
      ...env,
    },
    write: (l) => lines.push(l),
    background,
  });
  return {
    ...rt,
    url: rt.url.replace('localhost', '127.0.0.1'),
    dataDir,
    lines,
    async dispose() {
      await rt.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/**
 * A tenant made the way a user makes one, over the platform API: a token connection checked
 * at the fake code host, then a `github.new_issue` subscription whose hook the product
 * creates there (with its secret in the hook's config, as the code host keeps it).
 */
export async function subscribeOverApi(
  baseUrl: string,
  github: FakeGitHub,
  token: string,
): Promise<{ connectionId: string; subscriptionId: string; endpointId: string; hook: FakeHook }> {
  const api = httpApiCaller(baseUrl, platformKey);
  const connection = await api('POST', '/connections', { provider: 'github', token });
  if (connection.status !== 201) throw new Error(`connection refused: ${JSON.stringify(connection.body)}`);
  const sub = await api('POST', '/subscriptions', {
    connectionId: connection.body.id,
    trigger: 'github.new_issue',
    agentId: 'reliability-agent',
    repository,
  });
  if (sub.status !== 201) throw new Error(`subscription refused: ${JSON.stringify(sub.body)}`);
  const hook = github.hooksOf(`repos/${repository}`).find((h) => h.config.url.endsWith(`/webhooks/github/${sub.body.endpointId}`));
  if (!hook) throw new Error('no hook was made at the code host');
  return { connectionId: connection.body.id, subscriptionId: sub.body.id, endpointId: sub.body.endpointId, hook };
}
