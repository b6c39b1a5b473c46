/**
 * `npm run bench`: every benchmark in turn, each in its own process (so one's heap, JIT and
 * open handles cannot colour the next), each printing its figures next to the baseline it
 * measured in the same run, as a ratio, with PASS/FAIL against its goal (MISS, with why, for a
 * goal known to be out of reach on this machine: test/helpers/bench-known-limits.ts); then a summary of every
 * figure beside its goal, which ends in red only for a failure that is not known.
 * Short by default (about 3-4 minutes); BENCH_FULL=1 runs the 60 s load and saturation runs.
 *   BENCH_ONLY=intake,fanout   runs some of them
 *   BENCH_LOAD_SECONDS, BENCH_SOAK_SECONDS, BENCH_CONTENTSNARE_SECONDS override the timed runs
 */
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { summarize, type BenchRun } from '../test/helpers/bench-summary';

const full = process.env.BENCH_FULL === '1';
const benches: Array<{ key: string; file: string; env: Record<string, string> }> = [
  { key: 'intake', file: 'intake-throughput.ts', env: {} },
  { key: 'pipeline', file: 'pipeline-as-run.ts', env: {} },
  { key: 'tool-step', file: 'tool-step-overhead.ts', env: {} },
  { key: 'fanout', file: 'fanout-scaling.ts', env: {} },
  { key: 'app-fanout', file: 'app-fanout.ts', env: {} },
  { key: 'calls', file: 'aws-calls-per-delivery.ts', env: {} },
  { key: 'store-calls', file: 'store-call-cost.ts', env: {} },
  { key: 'polling', file: 'polling-scale.ts', env: {} },
  { key: 'cold', file: 'cold-start.ts', env: { BENCH_LOADS: process.env.BENCH_LOADS ?? '3' } },
  { key: 'load', file: 'load-200rps.ts', env: { BENCH_SECONDS: process.env.BENCH_LOAD_SECONDS ?? (full ? '60' : '10') } },
  { key: 'soak', file: 'dispatch-soak.ts', env: { BENCH_SECONDS: process.env.BENCH_SOAK_SECONDS ?? (full ? '180' : '60') } },
  {
    key: 'contentsnare',
    file: 'contentsnare-saturation.ts',
    env: { BENCH_SECONDS: process.env.BENCH_CONTENTSNARE_SECONDS ?? (full ? '60' : '30') },
  },
];

function run(file: string, env: Record<string, string>): Promise<{ code: number | null; out: string; seconds: number }> {
  const started = Date.now();
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['--import', 'tsx', join(import.meta.dirname, file)], {
      env: { ...process.env, AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    const relay = (d: Buffer) => {
      out += d.toString();
      process.stdout.write(d);
    };
    child.stdout.on('data', relay);
    child.stderr.on('data', relay);
    child.on('close', (code) => resolve({ code, out, seconds: (Date.now() - started) / 1000 }));
  });
}

async function main(): Promise<void> {
  const only = process.env.BENCH_ONLY?.split(',').map((s) => s.trim());
  const chosen = benches.filter((b) => !only || only.includes(b.key));
  const runs: BenchRun[] = [];
  for (const b of chosen) {
    console.log(
      `\n### ${b.file} ${Object.entries(b.env)
        .map(([k, v]) => `${k}=${v}`)
        .join(' ')}`,
    );
    runs.push({ file: b.file, ...(await run(b.file, b.env)) });
  }
  const { lines, exitCode } = summarize(runs);
  console.log(lines.join('\n'));
  process.exitCode = exitCode;
}

main().catch((e: unknown) => {
  console.error(e);
  process.exitCode = 1;
});
