import { AppError } from '../../../domain/errors';
import { readBoundedText, upstreamBodyLimits } from '../../../http/bounded-body';
import { networkCauseSuffix } from '../../../http/network-cause';
import type { Fetch } from '../../../ports';
import type { CodeHostAccess } from '../code-host-access';
import { tokenRenewingFetch } from '../token-renewing-fetch';

export interface RestCall {
  /** REST base, e.g. the configured `GITHUB_API_URL` or a connection's own. */
  baseUrl: string;
  token: string;
  /** Renews the token after a 401 (code-host-access.ts): the call is then sent once more. */
  renew?: CodeHostAccess['renew'];
  /** A GitHub App connection's user access, for the paths only a person may read (code-host-access.ts). */
  asUser?: CodeHostAccess['asUser'];
  method: 'GET' | 'POST' | 'PATCH' | 'DELETE' | 'PUT';
  /** Path under the base, segments already encoded. */
  path: string;
  body?: unknown;
  headers?: Record<string, string>;
  timeoutMs?: number;
  /** Largest answer taken, in decoded bytes (default `upstreamBodyLimits.rest`). */
  maxBytes?: number;
}

export interface RestResult {
  status: number;
  headers: Headers;
  /** Parsed JSON, or undefined for empty/non-JSON answers. */
  body: unknown;
}

/**
 * One call to the code host's REST interface for the webhook machinery (hooks, deliveries,
 * polling). Plain fetch rather than Octokit: these callers need the raw status (304, 403,
 * 404 decide what happens next), not thrown request errors and automatic retries.
 * A network failure or timeout becomes `upstream_error`, as does an answer over `maxBytes`
 * (`upstreamBodyLimits.rest` by default); the token never reaches a message.
 */
export async function restCall(fetchFn: Fetch, call: RestCall): Promise<RestResult> {
  const headers: Record<string, string> = {
    accept: 'application/vnd.github+json',
    'x-github-api-version': '2022-11-28',
    'user-agent': 'agent-integrations',
    authorization: `Bearer ${call.token}`,
    ...call.headers,
  };
  if (call.body !== undefined) headers['content-type'] = 'application/json';
  let res: Response;
  try {
    const send =
      call.renew || call.asUser
        ? tokenRenewingFetch(fetchFn, {
            baseUrl: call.baseUrl,
            token: call.token,
            ...(call.renew ? { renew: call.renew } : {}),
            ...(call.asUser ? { asUser: call.asUser } : {}),
          })
        : fetchFn;
    res = await send(`${call.baseUrl}${call.path}`, {
      method: call.method,
      headers,
      body: call.body === undefined ? undefined : JSON.stringify(call.body),
      signal: AbortSignal.timeout(call.timeoutMs ?? 10_000),
      redirect: 'manual',
    });
  } catch (e) {
    // A refusal of our own (the outbound address guard) keeps its code and reason.
    if (e instanceof AppError) throw e;
    if ((e as Error).name === 'TimeoutError')
      throw new AppError('timeout', `The code host did not answer in time (${call.method} ${call.path})`);
    throw new AppError('upstream_error', `The code host could not be reached (${call.method} ${call.path})${networkCauseSuffix(e)}`);
  }
  // The time limit covers the body too: a stall after the headers is a timeout, not a 500.
  // Bounded (decoded bytes): an answer over the limit is `upstream_error` naming it.
  const text = await readBoundedText(res, { maxBytes: call.maxBytes ?? upstreamBodyLimits.rest, service: 'the code host' }).catch(
    (e: unknown) => {
      if (e instanceof AppError) throw e;
      throw new AppError(
        (e as Error).name === 'TimeoutError' ? 'timeout' : 'upstream_error',
        `The code host stopped sending its answer (${call.method} ${call.path})`,
      );
    },
  );
  let body: unknown;
  if (text.length > 0) {
    try {
      body = JSON.parse(text);
    } catch {
      body = undefined;
    }
  }
  return { status: res.status, headers: res.headers, body };
}

/** The code host's own message from an error answer, for people. */
export function upstreamMessage(result: RestResult): string {
  const body = result.body as { message?: unknown; errors?: unknown } | undefined;
  const msg = typeof body?.message === 'string' ? body.message.slice(0, 300) : `HTTP ${result.status}`;
  const reasons = errorReasons(body?.errors);
  return reasons.length > 0 ? `${msg}: ${reasons.join('; ')}` : msg;
}

/**
 * The reasons of a 422's `errors[]` ("Validation Failed" alone says nothing): each entry's
 * `message`, else `code` on `resource.field`, as the code host documents client errors.
 */
export function errorReasons(errors: unknown): string[] {
  if (!Array.isArray(errors)) return [];
  return errors
    .slice(0, 5)
    .map((x) => {
      if (typeof x === 'string') return x;
      const { message, code, resource, field } = (x ?? {}) as Record<string, unknown>;
      if (typeof message === 'string') return message;
      const where = [resource, field].filter((v) => typeof v === 'string').join('.');
      return typeof code === 'string' ? `${where ? `${where} ` : ''}${code}` : '';
    })
    .filter(Boolean)
    .map((m) => m.slice(0, 300));
}

export function isOk(result: RestResult): boolean {
  return result.status >= 200 && result.status < 300;
}

/** `owner/name` -> `/repos/owner/name` with each segment encoded. */
export function repoPath(repository: string): string {
  const [owner = '', name = ''] = repository.split('/');
  return `/repos/${encodeURIComponent(owner)}/${encodeURIComponent(name)}`;
}

export function orgPath(organization: string): string {
  return `/orgs/${encodeURIComponent(organization)}`;
}
