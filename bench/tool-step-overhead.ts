/**
 * Tool-step overhead: what the platform adds to a step an agent waits for. One step,
 * `github.api_call` GET /user, against a fake code host (test/helpers/fake-github-server.ts),
 * three ways in the same run, alternating request by request so that load on the machine
 * falls on all of them alike:
 *   direct     the same upstream request (GET /user, bearer token) sent straight to the fake
 *   npm start  POST /tools/github.api_call/invoke on the product in its own process
 *              (`tsx local/main.ts`, default logging), connection made over the platform API
 *   handler    the tool-step Lambda handler in this process (direct-invoke event, no HTTP in
 *              front), on the local adapters (embedded DynamoDB, encrypted secret file)
 * Added latency = the path's percentile minus the direct request's, after BENCH_WARM calls.
 * Goals: added p50 < 5 ms and p99 < 20 ms, both paths.
 *   npx tsx bench/tool-step-overhead.ts   (BENCH_N=300 sequential calls per path)
 */
import { type Agent, request } from 'node:http';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createToolStepHandler } from '../functions/tool-step/create-handler';
import { startLocalRuntime } from '../local/runtime';
import { allProviderTools } from '../shared/wiring/provider-tools';
import { FakeGitHub } from '../test/helpers/fake-github-server';
import { platformKey, signingSecret } from '../test/helpers/runtime-support';
import { startProductProcess } from './lib/product-process';
import { envNumber, percentile, printFigures, runMain, type Figure } from './lib/report';
import { keepAliveAgent } from './lib/load';

const n = envNumber('BENCH_N', 300);
const warm = envNumber('BENCH_WARM', 50);
const token = 'ghp_toolStepBenchToken000000000000000000000';

/** One request over a keep-alive agent; resolves with the status once the body is read. */
function send(agent: Agent, url: string, method: string, headers: Record<string, string>, body?: string): Promise<number> {
  const u = new URL(url);
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: u.hostname,
        port: u.port,
        path: u.pathname,
        method,
        agent,
        headers: body === undefined ? headers : { ...headers, 'content-length': String(Buffer.byteLength(body)) },
      },
      (res) => {
        res.on('data', () => undefined);
        res.on('end', () => resolve(res.statusCode ?? 0));
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

async function connect(baseUrl: string): Promise<string> {
  const res = await fetch(`${baseUrl}/connections`, {
    method: 'POST',
    headers: { authorization: `Bearer ${platformKey}`, 'content-type': 'application/json' },
    body: JSON.stringify({ provider: 'github', token }),
  });
  const body = (await res.json()) as { id?: string };
  if (res.status !== 201 || !body.id) throw new Error(`connection refused: ${res.status} ${JSON.stringify(body)}`);
  return body.id;
}

async function main(): Promise<void> {
  const github = await FakeGitHub.start();
  github.addUser(token, 'Codertocat');
  const product = await startProductProcess({ GITHUB_API_URL: github.url });
  const productConnection = await connect(product.url);

  // The Lambda handler in this process, on the local adapters (no HTTP in front of it).
  const dataDir = mkdtempSync(join(tmpdir(), 'bench-tool-step-'));
  const local = await startLocalRuntime({
    env: {
      DATA_DIR: dataDir,
      PORT: '0',
      PLATFORM_API_KEY: platformKey,
      DISPATCH_SIGNING_SECRET: signingSecret,
      GITHUB_API_URL: github.url,
      POLL_INTERVAL_SECONDS: '3600',
    },
    write: () => undefined,
    background: false,
  });
  const localConnection = await connect(local.url.replace('localhost', '127.0.0.1'));
  const handler = createToolStepHandler(async () => local.ctx, allProviderTools);

  const agent = keepAliveAgent(1);
  const input = { method: 'GET', endpoint: '/user' };
  const paths = {
    direct: () =>
      send(agent, `${github.url}/user`, 'GET', {
        authorization: `Bearer ${token}`,
        accept: 'application/vnd.github+json',
        'user-agent': 'agent-integrations',
      }),
    product: () =>
      send(
        agent,
        `${product.url}/tools/github.api_call/invoke`,
        'POST',
        { authorization: `Bearer ${platformKey}`, 'content-type': 'application/json' },
        JSON.stringify({ connectionId: productConnection, input }),
      ),
    handler: async () => {
      const r = (await handler({ toolId: 'github.api_call', connectionId: localConnection, input })) as {
        ok: boolean;
        data?: { status?: number };
      };
      return r.ok ? (r.data?.status ?? 0) : 0;
    },
  };
  const ms: Record<keyof typeof paths, number[]> = { direct: [], product: [], handler: [] };
  const failures: string[] = [];
  for (let i = 0; i < warm + n; i++) {
    for (const name of Object.keys(paths) as Array<keyof typeof paths>) {
      const t0 = performance.now();
      const status = await paths[name]();
      const took = performance.now() - t0;
      if (status !== 200) failures.push(`${name}: ${status}`);
      if (i >= warm) ms[name].push(took);
    }
  }
  const logs = { ...product.logs };
  agent.destroy();
  await product.stop();
  await local.close();
  rmSync(dataDir, { recursive: true, force: true });
  await github.close();

  const p = (name: keyof typeof ms, q: number) => percentile(ms[name], q);
  console.log(
    `tool-step overhead: ${n} sequential calls per path after ${warm} to warm, github.api_call GET /user against a fake code host`,
  );
  for (const name of Object.keys(ms) as Array<keyof typeof ms>)
    console.log(`  ${name.padEnd(8)} p50 ${p(name, 50).toFixed(2)} ms, p99 ${p(name, 99).toFixed(2)} ms`);
  console.log(
    `  product log: ${logs.lines} lines; failed calls: ${failures.length}${failures.length ? ` (${[...new Set(failures)].join(', ')})` : ''}`,
  );
  const added = (name: 'product' | 'handler', q: number, goal: number, label: string): Figure => ({
    name: `${label} added latency p${q}`,
    value: p(name, q) - p('direct', q),
    unit: 'ms',
    baseline: { name: `direct request p${q}`, value: p('direct', q) },
    goal: `< ${goal} ms`,
    pass: p(name, q) - p('direct', q) < goal,
  });
  printFigures('tool-step overhead (added to the same upstream request, same fake, same run)', [
    added('product', 50, 5, 'npm start (HTTP)'),
    added('product', 99, 20, 'npm start (HTTP)'),
    added('handler', 50, 5, 'Lambda handler in process'),
    added('handler', 99, 20, 'Lambda handler in process'),
    {
      name: 'calls answered ok',
      value: 3 * (n + warm) - failures.length,
      unit: '',
      baseline: { name: 'made', value: 3 * (n + warm) },
      goal: 'all',
      pass: failures.length === 0,
    },
  ]);
}

runMain(main);
