import type { Fetch } from '../../../ports';
import { AppError } from '../../../domain/errors';
import { discardBody, readBoundedJson } from '../../../http/bounded-body';
import { githubHttpError } from '../github-errors';
import { githubUserAgent } from '../github-base';
import { appJwtAfterSkew, isJwtTimeRefusal } from './app-jwt';

export interface AppCallDeps {
  fetch: Fetch;
  clock: { now(): number };
  /** Per-call limit (ms): the code host's answer, headers and body, within it. */
  timeoutMs: number;
}

export interface AppCall {
  method: 'GET' | 'POST';
  url: string;
  /** A JWT (app endpoints), an installation token or a user token; none for the manifest's conversion, whose code is its credential. */
  bearer?: string;
  /** Largest decoded answer accepted. */
  maxBytes: number;
  /** Who answered, for messages ("the installation look-up"). */
  service: string;
}

/**
 * One call of the App's REST endpoints: bounded in time and size, no redirect followed (a
 * token or JWT is never carried elsewhere), the parsed JSON on success; a refusal is the code
 * host's error as an AppError (`details.status` set). A JWT refused for its times (this
 * machine's clock is off) is made again on the code host's `Date` and sent once more, as
 * `@octokit/auth-app` does.
 */
export async function appCall(deps: AppCallDeps, call: AppCall, skewRetried = false): Promise<unknown> {
  let res: Response;
  try {
    res = await deps.fetch(call.url, {
      method: call.method,
      headers: {
        ...(call.bearer ? { authorization: `Bearer ${call.bearer}` } : {}),
        accept: 'application/vnd.github+json',
        'x-github-api-version': '2022-11-28',
        'user-agent': githubUserAgent,
      },
      redirect: 'manual',
      signal: AbortSignal.timeout(deps.timeoutMs),
    });
  } catch (e) {
    if (e instanceof AppError) throw e;
    throw new AppError('unavailable', `The code host could not be reached for ${call.service}; try again`);
  }
  if (res.status >= 300 && res.status < 400) {
    await discardBody(res);
    throw new AppError('upstream_error', `The code host answered ${res.status}, a redirect, to ${call.service}; it is not followed`, {
      status: res.status,
    });
  }
  const data = await readBoundedJson(res, { maxBytes: call.maxBytes, service: call.service });
  if (res.status === 401 && !skewRetried && call.bearer) {
    const again = await jwtOnCodeHostTime(call.bearer, res, data);
    if (again) return appCall(deps, { ...call, bearer: again }, true);
  }
  if (!res.ok) throw githubHttpError(res.status, Object.fromEntries(res.headers), data, deps.clock.now());
  return data;
}

function jwtOnCodeHostTime(bearer: string, res: Response, data: unknown): Promise<string | undefined> | undefined {
  const message = data && typeof data === 'object' ? (data as { message?: unknown }).message : undefined;
  const date = res.headers.get('date');
  if (typeof message !== 'string' || !isJwtTimeRefusal(message) || date === null) return undefined;
  return appJwtAfterSkew(bearer, Date.parse(date));
}
