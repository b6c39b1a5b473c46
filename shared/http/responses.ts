import { AppError, type ErrorCode } from '../domain/errors';
import type { HttpResponse } from './types';

/**
 * On every answer: a browser must not sniff a JSON error into HTML, and no cache (browser or
 * proxy) may keep answers that carry tokens' metadata, hook URLs or OAuth state.
 */
export const safetyHeaders = { 'x-content-type-options': 'nosniff', 'cache-control': 'no-store' };

const jsonHeaders = { 'content-type': 'application/json; charset=utf-8', ...safetyHeaders };

/** Adds the safety headers an answer does not set itself (the node and Lambda adapters call this on every answer). */
export function withSafetyHeaders(answer: HttpResponse): HttpResponse {
  const present = new Set(Object.keys(answer.headers ?? {}).map((k) => k.toLowerCase()));
  const missing = Object.entries(safetyHeaders).filter(([k]) => !present.has(k));
  return missing.length === 0 ? answer : { ...answer, headers: { ...answer.headers, ...Object.fromEntries(missing) } };
}

export function json(status: number, value: unknown): HttpResponse {
  return { status, headers: { ...jsonHeaders }, body: JSON.stringify(value) };
}

/** The one place where error codes become HTTP statuses. */
export const statusByCode: Record<ErrorCode, number> = {
  invalid_input: 400,
  invalid_signature: 401,
  unauthorized: 401,
  forbidden: 403,
  managed_hook: 403,
  not_found: 404,
  connection_not_found: 404,
  conflict: 409,
  reconnect_required: 409,
  token_origin_mismatch: 409,
  payload_too_large: 413,
  nesting_too_deep: 400,
  rate_limited: 429,
  replay_limited: 429,
  not_configured: 501,
  // The runtime's own configuration stands in the way, not the request: set PUBLIC_URL or WEBHOOK_PROXY_URL.
  public_url_unreachable: 409,
  upstream_error: 502,
  timeout: 504,
  unavailable: 503,
  answer_too_large: 500,
  internal: 500,
};

/**
 * An error as an HTTP answer. A 429 or 503 whose details say when to come back
 * (`retryAfter`, whole seconds) says it in `Retry-After` too.
 */
export function errorResponse(error: AppError): HttpResponse {
  const status = statusByCode[error.code];
  const answer = json(status, { error: error.toJSON() });
  const retryAfter = error.details?.retryAfter;
  if ((status === 429 || status === 503) && typeof retryAfter === 'number' && Number.isFinite(retryAfter) && retryAfter >= 0) {
    answer.headers = { ...answer.headers, 'retry-after': String(Math.ceil(retryAfter)) };
  }
  return answer;
}

/** Any thrown value as an HTTP answer; unknown errors never leak their message. */
export function toErrorResponse(e: unknown): HttpResponse {
  if (e instanceof AppError) return errorResponse(e);
  return json(500, { error: { code: 'internal', message: 'Internal error' } });
}
