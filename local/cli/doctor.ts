import { existsSync } from 'node:fs';
import { createServer } from 'node:net';
import { pathToFileURL } from 'node:url';
import { ConfigError, loadConfig, type Config } from '../../shared/config/config';
import { isNonPublicHost } from '../../shared/subscriptions/public-url-check';
import { loadDotEnv } from '../dotenv';
import { generatedSecretsFile } from '../generated-secrets';
import { listenHost } from '../server-limits';
import { parsePort } from '../startup-checks';
import { callAdmin, dataDir, platformKey, type Env } from './local-admin-client';
import { checkConnectionGrants } from './doctor-grants';

export interface DoctorDeps {
  env: Env;
  out: (line: string) => void;
  fetch?: typeof fetch;
  /** `process.versions.node` (tests pass another). */
  nodeVersion?: string;
  /** Where `.env` is read (default: the working directory). */
  cwd?: string;
}

type Verdict = 'ok' | 'warn' | 'FAIL' | 'info';

/** Whether a TCP port on `host` can be listened on right now. */
function portFree(port: number, host: string): Promise<boolean> {
  return new Promise((resolve) => {
    const s = createServer();
    s.once('error', () => resolve(false));
    s.listen(port, host, () => s.close(() => resolve(true)));
  });
}

async function reachable(fetchImpl: typeof fetch, url: string, init: RequestInit = {}): Promise<{ ok: boolean; detail: string }> {
  try {
    const res = await fetchImpl(url, { ...init, signal: AbortSignal.timeout(5000), redirect: 'manual' });
    await res.body?.cancel().catch(() => {});
    return { ok: res.status < 500, detail: `answered ${res.status}` };
  } catch (e) {
    const cause = (e as { cause?: { code?: string; message?: string } }).cause;
    return { ok: false, detail: cause?.code ?? cause?.message ?? (e as Error).message };
  }
}

/**
 * `npm run doctor`: checks what stands between a person and a working runtime: Node's
 * version, `.env`, the configuration, the port, the platform key, whether the code host can
 * reach PUBLIC_URL (or a webhook relay is set), which providers are configured, and what
 * the running runtime's connections need of their tokens for their subscriptions and steps
 * (doctor-grants.ts). One line per check; exit 1 on any FAIL.
 */
export async function runDoctor(deps: DoctorDeps): Promise<number> {
  const env: Env = { ...deps.env };
  const fetchImpl = deps.fetch ?? fetch;
  let failed = false;
  const line = (v: Verdict, text: string) => {
    if (v === 'FAIL') failed = true;
    deps.out(`${v.padEnd(4)} ${text}`);
  };

  const node = deps.nodeVersion ?? process.versions.node;
  const major = Number(node.split('.')[0]);
  line(major >= 20 ? 'ok' : 'FAIL', `Node ${node}${major >= 20 ? '' : ': Node 20 or newer is needed (package.json engines)'}`);

  const dotenv = loadDotEnv(env, deps.cwd);
  if (dotenv.file)
    line(
      dotenv.problems.length === 0 ? 'ok' : 'FAIL',
      `.env: ${dotenv.loaded.length} variable(s) read from ${dotenv.file}${dotenv.problems.length ? `; ${dotenv.problems.join('; ')}` : ''}`,
    );
  else line('info', '.env: none in the working directory (optional: KEY=value lines, the real environment wins)');

  let port: number | undefined;
  try {
    port = parsePort(env.PORT);
  } catch (e) {
    line('FAIL', (e as ConfigError).problems.join('; '));
  }
  let config: Config | undefined;
  try {
    config = loadConfig({ ...env, PORT: String(port ?? 3000), PLATFORM_API_KEY: env.PLATFORM_API_KEY });
    line('ok', 'configuration: every variable is well-formed');
  } catch (e) {
    if (!(e instanceof ConfigError)) throw e;
    line('FAIL', `configuration: ${e.problems.join('; ')}`);
  }

  const host = listenHost(env);
  let running = false;
  if (port !== undefined && port !== 0) {
    if (await portFree(port, host)) line('ok', `port ${port} on ${host} is free (npm start / npm run dev will listen there)`);
    else {
      const health = await reachable(fetchImpl, `http://127.0.0.1:${port}/healthz`);
      running = health.ok && health.detail === 'answered 200';
      if (running) line('ok', `port ${port}: a runtime is already running there`);
      else line('FAIL', `PORT: ${port} is in use by another program on ${host}; stop it or set PORT to a free port`);
    }
  }

  if (env.PLATFORM_API_KEY) line('ok', 'platform key: from PLATFORM_API_KEY');
  else if (existsSync(generatedSecretsFile(dataDir(env)))) line('ok', `platform key: generated, in ${generatedSecretsFile(dataDir(env))}`);
  else line('info', `platform key: none yet; the first start generates one in ${generatedSecretsFile(dataDir(env))}`);

  if (config) {
    const publicIsLocal = isNonPublicHost(config.publicUrl);
    const hostIsPublic = !isNonPublicHost(config.github.apiUrl);
    if (config.webhookProxyUrl) {
      const relay = await reachable(fetchImpl, config.webhookProxyUrl, { headers: { accept: 'text/event-stream' } });
      line(
        relay.ok ? 'ok' : 'FAIL',
        `WEBHOOK_PROXY_URL ${config.webhookProxyUrl}: ${relay.ok ? 'reachable; hooks point there and its deliveries are replayed here' : `not reachable (${relay.detail})`}`,
      );
    } else if (publicIsLocal && hostIsPublic) {
      line(
        'warn',
        `PUBLIC_URL ${config.publicUrl} is not reachable from the Internet: ${config.github.apiUrl} will not deliver webhooks there (subscribing answers public_url_unreachable). Set PUBLIC_URL to a tunnel, or WEBHOOK_PROXY_URL to a smee.io channel (docs/sandbox.md); \`npm run dev\` needs neither`,
      );
    } else if (!publicIsLocal) {
      const health = await reachable(fetchImpl, `${config.publicUrl}/healthz`);
      line(
        health.ok ? 'ok' : 'FAIL',
        `PUBLIC_URL ${config.publicUrl}: ${health.ok ? `reachable (${health.detail})` : `not reachable (${health.detail}); is the tunnel running?`}`,
      );
    } else line('ok', `PUBLIC_URL ${config.publicUrl}: local, and so is the code host (${config.github.apiUrl})`);

    line(
      'info',
      `code host: ${config.github.apiUrl}; OAuth ${config.github.clientId ? 'configured' : 'not configured (GITHUB_CLIENT_ID/SECRET): connect with tokens (POST /connections)'}`,
    );
    line(
      'info',
      `collection service: ${config.contentsnare.apiUrl}; OAuth ${config.contentsnare.clientId ? 'configured' : 'not configured (CONTENTSNARE_CLIENT_ID/SECRET): no connection possible outside the sandbox'}`,
    );
    line(
      'info',
      `agent runtime: ${config.agentRuntimeUrl ?? 'AGENT_RUNTIME_URL not set: events are logged (npm run dev sends them to its inbox)'}`,
    );
  }

  if (running && port !== undefined) {
    const answer = await callAdmin(`http://127.0.0.1:${port}`, platformKey(env), 'GET', '/connections', undefined, fetchImpl);
    if (answer.reachable && answer.status === 200) {
      const connections =
        (
          answer.body as {
            connections?: Array<{ id: string; provider: string; accountLogin: string; authMethod: string; scopes?: string[] }>;
          }
        ).connections ?? [];
      if (connections.length === 0) line('info', 'connections: none yet');
      for (const c of connections) if (c.provider !== 'github') line('ok', `connection ${c.id} (${c.provider}, ${c.accountLogin})`);
      const base = `http://127.0.0.1:${port}`;
      // What each code-host connection's subscriptions and steps need, against what its token has.
      await checkConnectionGrants(
        async (method, path, body) => {
          const a = await callAdmin(base, platformKey(env), method, path, body, fetchImpl);
          return a.reachable ? { status: a.status, body: a.body } : undefined;
        },
        connections,
        line,
      );
    } else if (answer.reachable)
      line('warn', `connections: the runtime answered ${answer.status} (set PLATFORM_API_KEY or DATA_DIR to read them)`);
  }

  deps.out(failed ? 'Something needs fixing (FAIL lines above).' : 'All checks passed.');
  return failed ? 1 : 0;
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  runDoctor({ env: process.env, out: (l) => process.stdout.write(`${l}\n`) }).then(
    (code) => process.exit(code),
    (e: unknown) => {
      process.stderr.write(`doctor: ${e instanceof Error ? e.message : String(e)}\n`);
      process.exit(1);
    },
  );
}
