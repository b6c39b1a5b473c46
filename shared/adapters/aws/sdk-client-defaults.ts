/**
 * Settings every AWS SDK client of ours shares. `cacheMiddleware`: without it the SDK
 * resolves a command's middleware chain again on every send, a large share of its per-call
 * CPU on the intake's hot path (profiled); our clients never change their middleware after
 * construction, so the chain is resolved once per command class and reused.
 */
export const sdkClientDefaults = { cacheMiddleware: true } as const;
