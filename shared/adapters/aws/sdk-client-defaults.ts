/**
 * Settings every AWS SDK client of ours shares. `cacheMiddleware`: without it the SDK
 * resolves a command's middleware chain again on every send, a large share of its per-call
 * CPU on the intake's hot path (profiled); our clients never change their middleware after
 * construction, so the chain is resolved once per command class and reused.
 */
export const sdkClientDefaults = { cacheMiddleware: true } as const;

/**
 * Takes the SDK's logger middleware out of a client. We give the SDK no logger, yet that
 * middleware still builds the log entry on every call, walking the whole input and output
 * through the operation schema to mask sensitive fields, then hands it to a no-op logger:
 * ~2.4% of the local runtime's busy CPU under load (docs/performance.md). Nothing else reads
 * what it computes. Call before the client's first send (handlers are cached per command).
 */
export function withoutSdkLogging<C extends { middlewareStack: { remove(name: string): boolean } }>(client: C): C {
  client.middlewareStack.remove('loggerMiddleware');
  return client;
}
