import { AppError, type ErrorCode } from '../domain/errors';
import type { HttpResponse } from './types';

const jsonHeaders = { 'content-type': 'application/json; charset=utf-8' };

export function json(status: number, value: unknown): HttpResponse {
  return { status, headers: { ...jsonHeaders }, body: JSON.stringify(value) };
}

/** The one place where error codes become HTTP statuses. */
export const statusByCode: Record<ErrorCode, number> = {
  invalid_input: 400,
  invalid_signature: 401,
  unauthorized: 401,
  forbidden: 403,
  not_found: 404,
  connection_not_found: 404,
  conflict: 409,
  reconnect_required: 409,
  token_origin_mismatch: 409,
  payload_too_large: 413,
  rate_limited: 429,
  not_implemented: 501,
  not_configured: 501,
  upstream_error: 502,
  timeout: 504,
  unavailable: 503,
  internal: 500,
};

export function errorResponse(error: AppError): HttpResponse {
  return json(statusByCode[error.code], { error: error.toJSON() });
}

/** Any thrown value as an HTTP answer; unknown errors never leak their message. */
export function toErrorResponse(e: unknown): HttpResponse {
  if (e instanceof AppError) return errorResponse(e);
  return json(500, { error: { code: 'internal', message: 'Internal error' } });
}

export function notImplemented(feature: string): HttpResponse {
  return errorResponse(new AppError('not_implemented', `${feature} is not built yet`));
}
