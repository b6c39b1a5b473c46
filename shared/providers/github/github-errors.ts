import { AppError, type ErrorCode } from '../../domain/errors';
import { networkCause } from '../../http/network-cause';
import { errorReasons } from './webhooks/rest-call';

/**
 * The code host's HTTP failures as our stable error codes, in one place, for both the
 * Octokit-based steps and the generic `github.api_call` (which reads raw responses).
 */

type Headers = Record<string, string | number | undefined>;

function header(headers: Headers, name: string): string | undefined {
  const v = headers[name] ?? headers[name.toLowerCase()];
  return v === undefined ? undefined : String(v);
}

/**
 * The longest wait the code host's rate-limit headers are taken at: its primary budget is
 * per hour, so a reset further away than that (or a `Retry-After` of years) is not believed.
 */
export const maxHonouredRetryAfterSeconds = 3600;

/** Seconds until the code host lets this account call again, from its rate-limit headers, at most an hour. */
export function retryAfterSeconds(headers: Headers, nowMs: number): number | undefined {
  const retryAfter = Number(header(headers, 'retry-after'));
  if (Number.isFinite(retryAfter) && retryAfter > 0) return Math.min(Math.ceil(retryAfter), maxHonouredRetryAfterSeconds);
  const reset = Number(header(headers, 'x-ratelimit-reset'));
  if (Number.isFinite(reset) && reset > 0) return Math.min(Math.max(1, Math.ceil(reset - nowMs / 1000) + 1), maxHonouredRetryAfterSeconds);
  return undefined;
}

/** True when a 403/429 is a rate limit (primary or secondary) rather than a permission refusal. */
export function isRateLimitAnswer(status: number, headers: Headers, message: string): boolean {
  if (status === 429) return true;
  if (status !== 403) return false;
  return header(headers, 'x-ratelimit-remaining') === '0' || header(headers, 'retry-after') !== undefined || /rate limit/i.test(message);
}

function messageOf(data: unknown): string | undefined {
  if (data && typeof data === 'object' && typeof (data as { message?: unknown }).message === 'string') {
    return (data as { message: string }).message;
  }
  if (typeof data === 'string' && data.length > 0 && data.length < 500) return data;
  return undefined;
}

/** An HTTP answer of the code host (status >= 400) as an AppError; `details.status` is always set. */
export function githubHttpError(status: number, headers: Headers, data: unknown, nowMs: number): AppError {
  const upstream = messageOf(data);
  const said = upstream ? `: ${upstream}` : '';
  const details: Record<string, unknown> = { status };
  const docs = data && typeof data === 'object' ? (data as { documentation_url?: unknown }).documentation_url : undefined;
  if (typeof docs === 'string') details.documentationUrl = docs;
  if (isRateLimitAnswer(status, headers, upstream ?? '')) {
    details.retryAfter = retryAfterSeconds(headers, nowMs) ?? 60;
    return new AppError(
      'rate_limited',
      `The code host's rate limit was reached${said}; retry after ${String(details.retryAfter)} s`,
      details,
    );
  }
  if (status === 401) {
    return new AppError('reconnect_required', `The code host rejected the connection's token (401)${said}; reconnect the account`, details);
  }
  if (status === 403) {
    // The header names the permission a fine-grained token lacks, when the code host knows it.
    const needed = header(headers, 'x-accepted-github-permissions');
    if (needed) details.acceptedPermissions = needed;
    return new AppError('forbidden', `The code host refused the request (403)${said}${needed ? ` (needs: ${needed})` : ''}`, details);
  }
  if (status === 404 || status === 410) {
    return new AppError(
      'not_found',
      `The code host answered ${status}${said}: not found or not visible to this connection (it answers 404 also when the token may not see the resource)`,
      details,
    );
  }
  if (status === 409) return new AppError('conflict', `The code host reported a conflict (409)${said}`, details);
  if (status === 422 || status === 400) {
    const errors = data && typeof data === 'object' ? (data as { errors?: unknown }).errors : undefined;
    if (errors !== undefined) details.errors = errors;
    // "Validation Failed" alone says nothing: the reasons are in `errors[]`.
    const reasons = errorReasons(errors);
    return new AppError(
      'invalid_input',
      `The code host refused the input (${status})${said}${reasons.length > 0 ? `: ${reasons.join('; ')}` : ''}`,
      details,
    );
  }
  if (status === 413) return new AppError('payload_too_large', `The code host refused the payload as too large${said}`, details);
  return new AppError('upstream_error', `The code host answered ${status}${said}`, details);
}

interface RequestErrorLike {
  status: number;
  message: string;
  response?: { headers?: Headers; data?: unknown };
  cause?: unknown;
}

function isRequestErrorLike(e: unknown): e is RequestErrorLike {
  return e instanceof Error && typeof (e as { status?: unknown }).status === 'number';
}

interface GraphqlErrorLike {
  name: string;
  errors: { type?: string; message?: string; path?: unknown }[];
}

function isGraphqlErrorLike(e: unknown): e is GraphqlErrorLike {
  return e instanceof Error && e.name === 'GraphqlResponseError' && Array.isArray((e as { errors?: unknown }).errors);
}

/** GraphQL answers 200 with `errors`; their `type` says what HTTP would have said. */
const graphqlCodes: Readonly<Record<string, ErrorCode>> = {
  NOT_FOUND: 'not_found',
  FORBIDDEN: 'forbidden',
  INSUFFICIENT_SCOPES: 'forbidden',
  RATE_LIMITED: 'rate_limited',
  UNPROCESSABLE: 'invalid_input',
  BAD_USER_INPUT: 'invalid_input',
};

export function graphqlError(errors: GraphqlErrorLike['errors']): AppError {
  const first = errors[0] ?? {};
  const code = graphqlCodes[first.type ?? ''] ?? 'upstream_error';
  const said = errors
    .map((x) => x.message)
    .filter(Boolean)
    .join('; ');
  return new AppError(code, `The code host's GraphQL API refused the request${said ? `: ${said}` : ''}`, {
    errors: errors.map((x) => ({ type: x.type, message: x.message, path: x.path })),
  });
}

/**
 * Any failure of an Octokit call as an AppError. Network failures (Octokit reports them as
 * status 500 without a response) become `upstream_error`; a refusal raised by our own
 * guarded fetch keeps its code. Returns undefined for values that are not HTTP failures.
 */
export function mapGitHubError(e: unknown, nowMs: number): AppError | undefined {
  if (e instanceof AppError) return e;
  if (isGraphqlErrorLike(e)) return graphqlError(e.errors);
  if (!isRequestErrorLike(e)) return undefined;
  if (e.cause instanceof AppError) return e.cause;
  if (!e.response) {
    return new AppError('upstream_error', `Could not reach the code host (${networkCause(e) ?? e.message})`, { status: e.status });
  }
  return githubHttpError(e.status, e.response.headers ?? {}, e.response.data, nowMs);
}
