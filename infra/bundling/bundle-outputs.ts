import type { Metafile } from 'esbuild';

/** A function's bundle as esbuild wrote it (infra/bundling/esbuild-options.ts). */
export interface BundleOutputs {
  /** `index.mjs`, the handler's file. */
  entry: string;
  /** The code files node reads at a cold start: the entry and the chunks it imports statically. */
  atStartup: string[];
  /** Every code file (`.mjs`), the ones loaded on first use included; maps left out. */
  code: string[];
}

/** Reads a build's metafile: which of its files load at a cold start and which on first use. */
export function bundleOutputs(metafile: Metafile): BundleOutputs {
  const code = Object.keys(metafile.outputs).filter((f) => f.endsWith('.mjs'));
  const entry = code.find((f) => /(^|\/)index\.mjs$/.test(f));
  if (entry === undefined) throw new Error(`the bundle has no index.mjs (outputs: ${code.join(', ')})`);
  const atStartup = new Set<string>();
  const todo = [entry];
  for (let file = todo.pop(); file !== undefined; file = todo.pop()) {
    if (atStartup.has(file)) continue;
    atStartup.add(file);
    for (const i of metafile.outputs[file]?.imports ?? []) if (i.kind === 'import-statement' && !i.external) todo.push(i.path);
  }
  return { entry, atStartup: [...atStartup], code };
}
