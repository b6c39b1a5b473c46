/** Seconds before the next try: 5 s doubling per receive, capped at 15 minutes (SQS's visibility limit is 12 h; delay limit 15 min). */
export function backoffSeconds(receiveCount: number, retryAfterSeconds?: number): number {
  const exp = 5 * 2 ** Math.max(0, Math.min(receiveCount - 1, 16));
  const wanted = Math.max(exp, retryAfterSeconds ?? 0);
  return Math.min(900, Math.ceil(wanted));
}

/** `Retry-After` as seconds (delta or HTTP date), or undefined. */
export function parseRetryAfter(value: string | null, nowMs: number): number | undefined {
  if (!value) return undefined;
  const trimmed = value.trim();
  if (/^\d+$/.test(trimmed)) return Number(trimmed);
  const at = Date.parse(trimmed);
  return Number.isNaN(at) ? undefined : Math.max(0, Math.ceil((at - nowMs) / 1000));
}

/**
 * The slow lane's: 30 s doubling per receive, capped at 15 minutes. Its events already went
 * unanswered once, so they are tried less often than a plain failure (5 s); a runtime that
 * is only slow still gets each within minutes.
 */
export function slowLaneBackoffSeconds(receiveCount: number, retryAfterSeconds?: number): number {
  const exp = 30 * 2 ** Math.max(0, Math.min(receiveCount - 1, 16));
  return Math.min(900, Math.ceil(Math.max(exp, retryAfterSeconds ?? 0)));
}
