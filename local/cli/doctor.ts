import { existsSync } from 'node:fs';
import { createServer } from 'node:net';
import { pathToFileURL } from 'node:url';
import { ConfigError, loadConfig } from '../../shared/config/config';
import type { DoctorReport, Verdict } from '../admin/doctor-report';
import { loadDotEnv } from '../dotenv';
import { generatedSecretsFile } from '../generated-secrets';
import { listenHost } from '../server-limits';
import { parsePort } from '../startup-checks';
import { callAdmin, dataDir, errorText, platformKey, type Env } from './local-admin-client';
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

type Line = (v: Verdict, text: string) => void;

/** Whether a TCP port on `host` can be listened on right now. */
function portFree(port: number, host: string): Promise<boolean> {
  return new Promise((resolve) => {
    const s = createServer();
    s.once('error', () => resolve(false));
    s.listen(port, host, () => s.close(() => resolve(true)));
  });
}

/** Whether what answers on the port is this product's runtime (its health check). */
async function runtimeAnswers(fetchImpl: typeof fetch, port: number): Promise<boolean> {
  try {
    const res = await fetchImpl(`http://127.0.0.1:${port}/healthz`, { signal: AbortSignal.timeout(5000), redirect: 'manual' });
    await res.body?.cancel().catch(() => {});
    return res.status === 200;
  } catch {
    return false;
  }
}

/** What this shell's environment would start with: Node, `.env`, the settings' form, the port, the platform key. */
async function environmentChecks(deps: DoctorDeps, env: Env, line: Line): Promise<{ port?: number; running: boolean }> {
  const node = deps.nodeVersion ?? process.versions.node;
  const major = Number(node.split('.')[0]);
  line(major >= 20 ? 'ok' : 'FAIL', `Node ${node}${major >= 20 ? '' : ': Node 20 or newer is needed (package.json engines)'}`);
  const dotenv = loadDotEnv(env, deps.cwd);
  if (!dotenv.file) line('info', '.env: none in the working directory (optional: KEY=value lines, the real environment wins)');
  else {
    const problems = dotenv.problems.length ? `; ${dotenv.problems.join('; ')}` : '';
    line(problems ? 'FAIL' : 'ok', `.env: ${dotenv.loaded.length} variable(s) read from ${dotenv.file}${problems}`);
  }
  let port: number | undefined;
  try {
    port = parsePort(env.PORT);
  } catch (e) {
    line('FAIL', (e as ConfigError).problems.join('; '));
  }
  try {
    loadConfig({ ...env, PORT: String(port ?? 3000), PLATFORM_API_KEY: env.PLATFORM_API_KEY });
    line('ok', 'configuration: every variable is well-formed');
  } catch (e) {
    if (!(e instanceof ConfigError)) throw e;
    line('FAIL', `configuration: ${e.problems.join('; ')}`);
  }
  const secrets = generatedSecretsFile(dataDir(env));
  if (env.PLATFORM_API_KEY) line('ok', 'platform key: from PLATFORM_API_KEY');
  else if (existsSync(secrets)) line('ok', `platform key: generated, in ${secrets}`);
  else line('info', `platform key: none yet; the first start generates one in ${secrets}`);
  if (port === undefined || port === 0) return { running: false };
  const host = listenHost(env);
  if (await portFree(port, host)) return { port, running: false };
  if (await runtimeAnswers(deps.fetch ?? fetch, port)) return { port, running: true };
  line('FAIL', `PORT: ${port} is in use by another program on ${host}; stop it or set PORT to a free port`);
  return { port, running: false };
}

/** What the running runtime reports of itself (`GET /admin/doctor`), then each code-host connection's grants. */
async function runtimeChecks(deps: DoctorDeps, env: Env, port: number, line: Line): Promise<void> {
  const base = `http://127.0.0.1:${port}`;
  const call = (method: 'GET' | 'POST', path: string, body?: unknown) => callAdmin(base, platformKey(env), method, path, body, deps.fetch);
  const answer = await call('GET', '/admin/doctor');
  if (!answer.reachable) return line('warn', `runtime: it stopped answering on port ${port} (${answer.reason})`);
  if (answer.status !== 200) {
    return line(
      'warn',
      `runtime: it answered ${answer.status} (${errorText(answer.body)}); set PLATFORM_API_KEY or DATA_DIR to read its report`,
    );
  }
  const report = answer.body as DoctorReport;
  for (const check of report.checks) line(check.verdict, check.text);
  if (report.connections.length === 0) line('info', 'connections: none yet');
  for (const c of report.connections) if (c.kind !== 'code-host') line('ok', `connection ${c.id} (${c.provider}, ${c.accountLogin})`);
  // What each code-host connection's subscriptions and steps need, against what its token has.
  await checkConnectionGrants(
    async (method, path, body) => {
      const a = await call(method as 'GET' | 'POST', path, body);
      return a.reachable ? { status: a.status, body: a.body } : undefined;
    },
    report.connections,
    line,
  );
}

/**
 * `npm run doctor`: checks what this shell would start the runtime with (Node, `.env`, the
 * settings, the port, the platform key), then asks the running runtime for what it reports of
 * itself (`GET /admin/doctor`: PUBLIC_URL's reach, the providers, the agent runtime, the
 * connections) and what its connections' tokens need (doctor-grants.ts). One line per check;
 * exit 1 on any FAIL.
 */
export async function runDoctor(deps: DoctorDeps): Promise<number> {
  const env: Env = { ...deps.env };
  let failed = false;
  const line: Line = (v, text) => {
    if (v === 'FAIL') failed = true;
    deps.out(`${v.padEnd(4)} ${text}`);
  };
  const { port, running } = await environmentChecks(deps, env, line);
  if (running && port !== undefined) {
    line('ok', `port ${port}: a runtime is already running there`);
    await runtimeChecks(deps, env, port, line);
  } else if (!failed) {
    const where = port ? `on port ${port}` : 'here';
    line(
      'warn',
      `runtime: none is running ${where}, so nothing of it was checked (PUBLIC_URL's reach, the providers, the connections); start it with npm start or npm run dev, then run npm run doctor again`,
    );
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
