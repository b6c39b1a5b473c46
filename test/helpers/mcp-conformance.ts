import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** The server scenarios of the official MCP conformance suite that apply to this server. */
export const applicableScenarios = [
  'server-initialize',
  'ping',
  'tools-list',
  'tools-call-error',
  'resources-list',
  'dns-rebinding-protection',
];

export interface ConformanceCheck {
  scenario: string;
  id: string;
  status: 'SUCCESS' | 'FAILURE' | 'WARNING' | 'INFO' | string;
  errorMessage?: string;
}

const root = join(import.meta.dirname, '../..');
const suite = join(root, 'node_modules/@modelcontextprotocol/conformance/dist/index.js');
const preload = join(import.meta.dirname, 'mcp-conformance/register.mjs');

/**
 * A loopback forwarder to `target` that adds the bearer key: the suite sends none, and /mcp
 * needs one. Host and Origin pass unchanged, so the DNS-rebinding scenario's headers reach
 * the server as the suite wrote them (and the server sees a loopback peer, as a browser's
 * rebound request would be).
 */
async function keyedProxy(target: URL, key: string): Promise<{ url: string; close(): Promise<void> }> {
  const server: Server = createServer((req, res) => {
    const out = request(
      {
        host: target.hostname,
        port: target.port,
        method: req.method,
        path: req.url,
        headers: { ...req.headers, authorization: `Bearer ${key}` },
      },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    out.on('error', () => {
      res.writeHead(502).end();
    });
    req.pipe(out);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://localhost:${port}/mcp`,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

function run(args: string[], timeoutMs: number): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['--import', preload, suite, ...args], { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (d) => {
      output += d;
    });
    child.stderr.on('data', (d) => {
      output += d;
    });
    const timer = setTimeout(() => child.kill(), timeoutMs);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, output });
    });
  });
}

function checksIn(dir: string, scenario: string): ConformanceCheck[] {
  const out: ConformanceCheck[] = [];
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) out.push(...checksIn(path, scenario));
    else if (name === 'checks.json') {
      for (const c of JSON.parse(readFileSync(path, 'utf8')) as ConformanceCheck[])
        out.push({ scenario, id: c.id, status: c.status, ...(c.errorMessage ? { errorMessage: c.errorMessage } : {}) });
    }
  }
  return out;
}

/**
 * Runs the suite's server scenarios against the MCP endpoint at `mcpUrl` (e.g.
 * `http://127.0.0.1:3000/mcp`) with `key`, one scenario per run, and answers every check.
 * Node 20 lacks `fs.globSync`, which the suite imports: it runs with the preload in
 * `mcp-conformance/register.mjs`.
 */
export async function runConformance(
  mcpUrl: string,
  key: string,
  scenarios = applicableScenarios,
  timeoutMs = 30_000,
): Promise<{ checks: ConformanceCheck[]; outputs: Record<string, string> }> {
  const proxy = await keyedProxy(new URL(mcpUrl), key);
  const checks: ConformanceCheck[] = [];
  const outputs: Record<string, string> = {};
  try {
    for (const scenario of scenarios) {
      const dir = mkdtempSync(join(tmpdir(), 'mcp-conformance-'));
      const { output } = await run(['server', '--url', proxy.url, '--scenario', scenario, '-o', dir], timeoutMs);
      outputs[scenario] = output;
      checks.push(...checksIn(dir, scenario));
    }
  } finally {
    await proxy.close();
  }
  return { checks, outputs };
}
