/**
 * A module loaded on first use (`loadOnce(() => import('./x'))`), so that a function does not
 * compile it at every cold start; esbuild puts it in a chunk of its own. The promise is kept:
 * every import() resolves its specifier again (under tsx, through the loader's worker thread,
 * ~0.5 ms a call). A load that failed is forgotten, so the next call tries again.
 */
export function loadOnce<T>(load: () => Promise<T>): () => Promise<T> {
  let loaded: Promise<T> | undefined;
  return () =>
    (loaded ??= load().catch((e: unknown) => {
      loaded = undefined;
      throw e;
    }));
}
