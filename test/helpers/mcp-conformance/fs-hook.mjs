// Resolves `fs` / `node:fs` to fs-with-glob.mjs for every importer but that module itself.
const shim = new URL('./fs-with-glob.mjs', import.meta.url).href;

export async function resolve(specifier, context, next) {
  if ((specifier === 'fs' || specifier === 'node:fs') && context.parentURL !== shim) return { url: shim, shortCircuit: true };
  return next(specifier, context);
}
