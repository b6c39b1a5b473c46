/**
 * The longest wait a 429 is honoured for (and so the longest an account is blocked, in the
 * table, for every worker): the service's window is 10 s, and one answer of
 * `Retry-After: 999999999` must not block a connection for decades. The same cap as the
 * dispatch's back-off.
 */
export const maxHonouredRetryAfterMs = 15 * 60 * 1000;

/**
 * How long a 429 asks us to wait: `Retry-After` as delay-seconds or an HTTP date
 * (RFC 9110 10.2.3), at most `maxHonouredRetryAfterMs`; otherwise exponential backoff.
 * Returns milliseconds.
 */
export function retryAfterMs(header: string | null | undefined, nowMs: number): number | undefined {
  if (header === null || header === undefined) return undefined;
  const value = header.trim();
  if (/^\d+$/.test(value)) return Math.min(Number(value) * 1000, maxHonouredRetryAfterMs);
  if (value === '' || /^[\d.+-]+$/.test(value)) return undefined;
  const at = Date.parse(value);
  if (Number.isNaN(at)) return undefined;
  return Math.min(Math.max(0, at - nowMs), maxHonouredRetryAfterMs);
}

/** 1 s, 2 s, 4 s ... for the n-th (1-based) consecutive 429 without a usable Retry-After, capped. */
export function backoffMs(attempt: number, capMs: number, baseMs = 1000): number {
  return Math.min(capMs, baseMs * 2 ** Math.max(0, attempt - 1));
}
