/**
 * Cold start of each function: its bundle built with the settings of
 * infra/constructs/integration-function.ts (esbuild, ESM, node22, minified, source map,
 * the AWS SDK external because the nodejs22.x runtime provides it), its size, and the time
 * `node` takes to import it (median of BENCH_LOADS child processes), against a baseline
 * bundle that holds only the AWS SDK clients the function imports.
 * Goal: every bundle < 1 MB, every module load < 150 ms.
 *   npx tsx bench/cold-start.ts        (BENCH_LOADS=5)
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { build, type BuildOptions } from 'esbuild';
import { projectRoot } from '../infra/constructs/integration-function';
import { envNumber, median, printFigures, runMain, type Figure } from './lib/report';

const run = promisify(execFile);
const loads = envNumber('BENCH_LOADS', 5);
/** Also measure the alternative of bundling the SDK (BENCH_SDK_BUNDLED=0 to skip). */
const withSdkBundled = process.env.BENCH_SDK_BUNDLED !== '0';
const functions = ['webhook-intake', 'dispatch', 'poller', 'redelivery-sweep', 'tool-step', 'oauth', 'platform-api'] as const;

/** What NodejsFunction passes to esbuild for our bundling props (see the construct). */
const settings: BuildOptions = {
  bundle: true,
  format: 'esm',
  target: 'node22',
  platform: 'node',
  mainFields: ['module', 'main'],
  minify: true,
  sourcemap: true,
  sourcesContent: false,
  external: ['@aws-sdk/*'],
  banner: { js: "import { createRequire as __cr } from 'node:module'; const require = __cr(import.meta.url);" },
  metafile: true,
  logLevel: 'error',
};

async function bundle(entry: string, outfile: string, sdkExternal = true): Promise<{ bytes: number; sdk: string[] }> {
  const result = await build({ ...settings, external: sdkExternal ? settings.external : [], entryPoints: [entry], outfile, absWorkingDir: projectRoot });
  const out = Object.values(result.metafile!.outputs).find((o) => o.entryPoint !== undefined);
  const sdk = [...new Set((out?.imports ?? []).filter((i) => i.external && i.path.startsWith('@aws-sdk/')).map((i) => i.path))].sort();
  return { bytes: statSync(outfile).size, sdk };
}

/** ms to import the module in a fresh node process (node's own start-up excluded), median of `loads`. */
async function loadMs(file: string): Promise<number> {
  const code = `const t = performance.now(); await import(${JSON.stringify(pathToFileURL(file).href)}); console.log(performance.now() - t);`;
  const times: number[] = [];
  for (let i = 0; i < loads; i++) {
    const { stdout } = await run(process.execPath, ['--input-type=module', '-e', code], { env: { ...process.env, NODE_OPTIONS: '--enable-source-maps', AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true' } });
    times.push(Number(stdout.trim().split('\n').at(-1)));
  }
  return median(times);
}

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'bench-cold-'));
  // The SDK is external: resolve it from the project's node_modules, as the runtime would from its own.
  symlinkSync(join(projectRoot, 'node_modules'), join(dir, 'node_modules'), 'dir');
  const figures: Figure[] = [];
  try {
    for (const name of functions) {
      const out = join(dir, name, 'index.mjs');
      let fn: { bytes: number; sdk: string[] };
      try {
        fn = await bundle(join(projectRoot, 'functions', name, 'handler.ts'), out);
      } catch (e) {
        console.log(`  ${name}: bundle failed: ${(e as Error).message.split('\n')[0]}`);
        figures.push({ name: `${name} bundle`, value: Number.NaN, unit: '', goal: 'builds', pass: false });
        continue;
      }
      const baseEntry = join(dir, `${name}-baseline.ts`);
      writeFileSync(baseEntry, `${fn.sdk.map((m, i) => `import * as sdk${i} from '${m}';`).join('\n')}\nexport const handler = async () => [${fn.sdk.map((_, i) => `sdk${i}`).join(', ')}].length;\n`);
      const base = await bundle(baseEntry, join(dir, `${name}-baseline`, 'index.mjs'));
      const [ms, baseMs] = [await loadMs(out), await loadMs(join(dir, `${name}-baseline`, 'index.mjs'))];
      console.log(`  ${name}: SDK clients ${fn.sdk.join(', ') || 'none'}`);
      figures.push({ name: `${name} bundle size (as deployed: SDK external)`, value: fn.bytes / 1024, unit: 'KB', baseline: { name: 'SDK-only bundle', value: base.bytes / 1024 }, goal: '< 1024 KB', pass: fn.bytes < 1024 * 1024 });
      figures.push({ name: `${name} module load (as deployed: SDK external)`, value: ms, unit: 'ms', baseline: { name: 'SDK-only bundle', value: baseMs }, goal: '< 150 ms', pass: ms < 150 });
      if (!withSdkBundled) continue;
      // The alternative: the SDK clients inside the bundle (one file to parse instead of the SDK's many modules).
      const inOut = join(dir, `${name}-sdk-in`, 'index.mjs');
      const inBase = join(dir, `${name}-baseline-sdk-in`, 'index.mjs');
      const fnIn = await bundle(join(projectRoot, 'functions', name, 'handler.ts'), inOut, false);
      const baseIn = await bundle(baseEntry, inBase, false);
      const [msIn, baseMsIn] = [await loadMs(inOut), await loadMs(inBase)];
      figures.push({ name: `${name} bundle size (SDK bundled)`, value: fnIn.bytes / 1024, unit: 'KB', baseline: { name: 'SDK-only bundle', value: baseIn.bytes / 1024 }, goal: '< 1024 KB (informational)', pass: true });
      figures.push({ name: `${name} module load (SDK bundled)`, value: msIn, unit: 'ms', baseline: { name: 'SDK-only bundle', value: baseMsIn }, goal: '< 150 ms (informational)', pass: true });
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  printFigures(`cold start (median of ${loads} loads per bundle)`, figures);
}

runMain(main);
