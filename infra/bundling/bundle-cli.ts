/**
 * Bundles one function for the stack: `node --import tsx infra/bundling/bundle-cli.ts <entry> <outdir>`
 * writes <outdir>/index.mjs, the chunks it loads on first use (<outdir>/chunks/) and their
 * source maps. A separate process because CDK asks for local bundling synchronously and
 * esbuild runs plugins (zodEnglishOnly) only in its async API.
 */
import * as path from 'node:path';
import { build } from 'esbuild';
import { functionBuildOptions } from './esbuild-options';

const [entry, outdir] = process.argv.slice(2);
if (!entry || !outdir) {
  console.error('usage: bundle-cli.ts <entry.ts> <outdir>');
  process.exit(2);
}
// esbuild prints its errors and rejects: the process then exits non-zero, which fails the synth.
await build({ ...functionBuildOptions(path.resolve(entry), path.resolve(outdir)), logLevel: 'warning' });
