/**
 * A value built once per Lambda container on first use (the function's AppContext), shared
 * by every later invocation. A failed build is not cached: one bad cold start (a throttled
 * secret read, say) must not poison the container, so the next invocation tries again.
 */
export function perContainer<T>(build: () => T | Promise<T>): () => Promise<T> {
  let value: Promise<T> | undefined;
  return () => {
    value ??= Promise.resolve()
      .then(build)
      .catch((e: unknown) => {
        value = undefined;
        throw e;
      });
    return value;
  };
}
