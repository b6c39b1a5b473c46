/**
 * Cold start of each function: its bundle built exactly as deployed
 * (infra/bundling/esbuild-options.ts: minified ESM, `index.mjs` and the chunks it loads on
 * first use, with source maps, the AWS SDK bundled, zod's English locale only), its size
 * (all of its code, and what a cold start reads), and the time `node` takes to import it
 * (median of BENCH_LOADS child processes, source maps enabled as on Lambda), against a
 * baseline bundle built the same way that holds only the AWS SDK clients and commands the
 * function's own code imports.
 * Goal: every bundle < 1 MB, every module load < 60 ms (the slowest, tool-step, was 96 ms).
 *   npx tsx bench/cold-start.ts        (BENCH_LOADS=5)
 */
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { build, type Metafile } from 'esbuild';
import { bundleOutputs } from '../infra/bundling/bundle-outputs';
import { functionBuildOptions } from '../infra/bundling/esbuild-options';
import { projectRoot } from '../infra/constructs/integration-function';
import { envNumber, median, printFigures, runMain, type Figure } from './lib/report';

const run = promisify(execFile);
const loads = envNumber('BENCH_LOADS', 5);
const allFunctions = ['webhook-intake', 'dispatch', 'poller', 'redelivery-sweep', 'tool-step', 'oauth', 'platform-api'] as const;
// BENCH_FUNCTIONS=tool-step,dispatch measures some of them (while working on one).
const functions = allFunctions.filter((f) => !process.env.BENCH_FUNCTIONS || process.env.BENCH_FUNCTIONS.split(',').includes(f));

interface Built {
  /** The handler file to import. */
  index: string;
  /** All of the function's code (every `.mjs`). */
  bytes: number;
  /** The code a cold start reads: index.mjs and the chunks it imports statically. */
  startupBytes: number;
  metafile: Metafile;
}

async function bundle(entry: string, outdir: string): Promise<Built> {
  const result = await build({ ...functionBuildOptions(entry, outdir), absWorkingDir: projectRoot });
  const metafile = result.metafile!;
  const outputs = bundleOutputs(metafile);
  const size = (files: string[]) => files.reduce((sum, f) => sum + statSync(join(projectRoot, f)).size, 0);
  return { index: join(outdir, 'index.mjs'), bytes: size(outputs.code), startupBytes: size(outputs.atStartup), metafile };
}

/** One SDK package as the function's own code imports it: its value bindings, and whether only on first use. */
interface SdkUse {
  names: Set<string>;
  dynamic: boolean;
}

/**
 * What the function's own code (not its dependencies) imports from `@aws-sdk/*` and keeps in
 * the bundle: package -> value bindings (`import type` and `type X` left out), and whether the
 * package is reached only through a dynamic import (loaded on first use, not at start-up).
 * The baseline imports them the same way, so it carries the clients and commands the
 * function really loads, when it loads them.
 */
function sdkImportsOf(metafile: Metafile): Map<string, SdkUse> {
  const outputs = bundleOutputs(metafile);
  const inputsOf = (files: string[]) => files.flatMap((f) => Object.entries(metafile.outputs[f]?.inputs ?? {}));
  // Inputs that run at start-up: those in index.mjs and the chunks it imports statically.
  const atStartup = new Set(inputsOf(outputs.atStartup).map(([file]) => file));
  // The function's inputs, wherever the split put them.
  const inputs = inputsOf(outputs.code);
  // A package counts when its code is in the bundle. Not the importing file's own bytes: a
  // re-export-only module (s3-commands.ts) has none once splitting gives it a chunk.
  const sdkInBundle = new Set(
    inputs.filter(([, { bytesInOutput }]) => bytesInOutput > 0).map(([file]) => file.match(/node_modules\/(@aws-sdk\/[^/]+)\//)?.[1]),
  );
  const used = new Map<string, SdkUse>();
  for (const [file] of inputs) {
    if (file.includes('node_modules/')) continue;
    const sdk = (metafile.inputs[file]?.imports ?? []).filter((i) => i.original?.startsWith('@aws-sdk/') && sdkInBundle.has(i.original));
    if (sdk.length === 0) continue;
    const source = readFileSync(join(projectRoot, file), 'utf8');
    for (const { original, kind } of sdk) {
      const pkg = original!;
      const use = used.get(pkg) ?? { names: new Set<string>(), dynamic: true };
      used.set(pkg, use);
      if (kind === 'dynamic-import') continue;
      if (atStartup.has(file)) use.dynamic = false;
      const quoted = pkg.replace(/[/\\-]/g, '\\$&');
      for (const m of source.matchAll(new RegExp(`import\\s+(type\\s+)?\\{([^}]*)\\}\\s*from\\s*['"]${quoted}['"]`, 'g'))) {
        if (m[1]) continue;
        for (const part of m[2]!
          .split(',')
          .map((s) => s.trim())
          .filter(Boolean)) {
          if (!part.startsWith('type ')) use.names.add(part.split(/\s+as\s+/)[0]!);
        }
      }
      for (const m of source.matchAll(new RegExp(`export\\s*\\{([^}]*)\\}\\s*from\\s*['"]${quoted}['"]`, 'g'))) {
        for (const part of m[1]!
          .split(',')
          .map((s) => s.trim())
          .filter(Boolean))
          use.names.add(part.split(/\s+as\s+/)[0]!);
      }
    }
  }
  return used;
}

/** The baseline entry (and the module it loads on first use, when the function has one). */
function baselineSources(sdk: Map<string, SdkUse>): { entry: string; lazy: string } {
  const eager: string[] = [];
  const lazy: string[] = [];
  const refs: string[] = [];
  const lazyRefs: string[] = [];
  [...sdk].forEach(([pkg, { names, dynamic }], i) => {
    const [lines, r] = dynamic ? [lazy, lazyRefs] : [eager, refs];
    if (names.size === 0) {
      lines.push(`import * as sdk${i} from '${pkg}';`);
      r.push(`sdk${i}`);
    } else {
      lines.push(`import { ${[...names].map((n) => `${n} as sdk${i}_${n}`).join(', ')} } from '${pkg}';`);
      r.push(...[...names].map((n) => `sdk${i}_${n}`));
    }
  });
  if (lazyRefs.length > 0) refs.push(`() => import('./lazy')`);
  return {
    entry: `${eager.join('\n')}\nexport const handler = async () => [${refs.join(', ')}].length;\n`,
    lazy: `${lazy.join('\n')}\nexport const all = [${lazyRefs.join(', ')}];\n`,
  };
}

function describeSdk(sdk: Map<string, SdkUse>): string {
  const parts = [...sdk].map(
    ([pkg, { names, dynamic }]) => `${pkg.replace('@aws-sdk/', '')} (${dynamic ? 'on first use: ' : ''}${[...names].join(', ') || '*'})`,
  );
  return parts.join('; ') || 'none';
}

interface LoadTime {
  wall: number;
  cpu: number;
}

/**
 * ms to import the module in a fresh node process (node's own start-up excluded): wall time,
 * and the process's CPU time over the import (which a machine shared with other work
 * inflates far less; on Lambda's own vCPU the two are close).
 */
async function loadOnce(file: string): Promise<LoadTime> {
  const code = `const c = process.cpuUsage(); const t = performance.now(); await import(${JSON.stringify(pathToFileURL(file).href)}); const u = process.cpuUsage(c); console.log(performance.now() - t, (u.user + u.system) / 1000);`;
  const { stdout } = await run(process.execPath, ['--input-type=module', '-e', code], {
    env: { ...process.env, NODE_OPTIONS: '--enable-source-maps', AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true' },
  });
  const [wall, cpu] = stdout.trim().split('\n').at(-1)!.split(' ').map(Number);
  return { wall: wall!, cpu: cpu! };
}

/** The function's and its baseline's load times, the two loaded in turn so that both see the same machine. */
async function loadTimes(file: string, baseline: string): Promise<[LoadTime, LoadTime]> {
  const samples: [LoadTime[], LoadTime[]] = [[], []];
  for (let i = 0; i < loads; i++) {
    samples[0].push(await loadOnce(file));
    samples[1].push(await loadOnce(baseline));
  }
  const summary = (s: LoadTime[]): LoadTime => ({ wall: median(s.map((x) => x.wall)), cpu: median(s.map((x) => x.cpu)) });
  return [summary(samples[0]), summary(samples[1])];
}

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'bench-cold-'));
  // Baseline entries resolve '@aws-sdk/*' from the project; no node_modules near the bundles
  // (dir/out): each must load on its own, as on Lambda.
  mkdirSync(join(dir, 'src'));
  symlinkSync(join(projectRoot, 'node_modules'), join(dir, 'src', 'node_modules'), 'dir');
  const figures: Figure[] = [];
  try {
    for (const name of functions) {
      const out = join(dir, 'out', name);
      let fn: Built;
      try {
        fn = await bundle(join(projectRoot, 'functions', name, 'handler.ts'), out);
      } catch (e) {
        console.log(`  ${name}: bundle failed: ${(e as Error).message.split('\n')[0]}`);
        figures.push({ name: `${name} bundle`, value: Number.NaN, unit: '', goal: 'builds', pass: false });
        continue;
      }
      const sdk = sdkImportsOf(fn.metafile);
      const baseDir = join(dir, 'src', name);
      const baseEntry = join(baseDir, 'baseline.ts');
      const baseOut = join(dir, 'out', `${name}-baseline`);
      const sources = baselineSources(sdk);
      mkdirSync(baseDir);
      writeFileSync(baseEntry, sources.entry);
      writeFileSync(join(baseDir, 'lazy.ts'), sources.lazy);
      const base = await bundle(baseEntry, baseOut);
      const [load, baseLoad] = await loadTimes(fn.index, base.index);
      const [ms, baseMs] = [load.wall, baseLoad.wall];
      console.log(`  ${name}: SDK ${describeSdk(sdk)}`);
      figures.push({
        name: `${name} bundle size`,
        value: fn.bytes / 1024,
        unit: 'KB',
        baseline: { name: 'SDK-only bundle', value: base.bytes / 1024 },
        goal: '< 1024 KB',
        pass: fn.bytes < 1024 * 1024,
      });
      figures.push({
        name: `${name} code read at a cold start`,
        value: fn.startupBytes / 1024,
        unit: 'KB',
        baseline: { name: 'SDK-only bundle', value: base.startupBytes / 1024 },
        goal: 'informational',
        pass: true,
      });
      figures.push({
        name: `${name} module load`,
        value: ms,
        unit: 'ms',
        baseline: { name: 'SDK-only bundle', value: baseMs },
        goal: '< 60 ms',
        pass: ms < 60,
      });
      // What the function's own code adds to the SDK it needs: the part this project controls.
      figures.push({ name: `${name} module load beyond its SDK`, value: ms - baseMs, unit: 'ms', goal: 'informational', pass: true });
      figures.push({
        name: `${name} module load, CPU time`,
        value: load.cpu,
        unit: 'ms',
        baseline: { name: 'SDK-only bundle', value: baseLoad.cpu },
        goal: 'informational',
        pass: true,
      });
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  printFigures(`cold start (median of ${loads} loads per bundle)`, figures);
}

runMain(main);
