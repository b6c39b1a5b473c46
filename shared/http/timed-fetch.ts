import { AppError } from '../domain/errors';
import type { Fetch } from '../ports';
import { readBoundedBody, upstreamBodyLimits } from './bounded-body';

/**
 * An upstream that did not answer (headers and whole body) within the time limit.
 * Named `AbortError` on purpose: Octokit passes such errors through as they are instead of
 * wrapping them in a retryable status-500 RequestError, so a silent upstream is not asked
 * again (each try would wait the full limit again); `mapGitHubError` keeps the AppError.
 */
export class UpstreamTimeoutError extends AppError {
  constructor(service: string, timeoutMs: number) {
    super('timeout', `${service} did not answer within ${timeoutMs} ms; a write may or may not have happened`, { timeoutMs });
    this.name = 'AbortError';
  }
}

export interface TimedFetchOptions {
  /** Limit for the whole exchange: connect, headers and the full body. */
  timeoutMs: number;
  /** Who answers, for the message ("The code host"). */
  service: string;
  /**
   * Refuse (`upstream_error`) a body larger than this once decoded, without buffering the
   * rest (default `upstreamBodyLimits.toolStep`): every answer is bounded.
   */
  maxBytes?: number;
}

/** A constructed Response has an empty `url`; Octokit's paginate reads it, so keep the original's. */
export function withUrl(res: Response, url: string): Response {
  if (url) Object.defineProperty(res, 'url', { value: url });
  return res;
}

/**
 * A fetch whose every call ends within `timeoutMs` (docs/security.md, section 4): the request, the answer's
 * headers AND its body are read inside the limit, and the answer is handed back buffered,
 * so a server that sends headers and then stalls cannot hold the caller either. Past the
 * limit the request is aborted and the call fails with `timeout`. The limit races the
 * underlying fetch, so it holds even for a fetch that ignores its signal.
 */
export function timedFetch(fetchImpl: Fetch, options: TimedFetchOptions): Fetch {
  const { timeoutMs, service } = options;
  const timed = async (input: Parameters<Fetch>[0], init?: Parameters<Fetch>[1]): Promise<Response> => {
    const timer = new AbortController();
    const signal = init?.signal ? AbortSignal.any([init.signal, timer.signal]) : timer.signal;
    let handle: ReturnType<typeof setTimeout> | undefined;
    const expired = new Promise<never>((_, reject) => {
      handle = setTimeout(() => {
        timer.abort();
        reject(new UpstreamTimeoutError(service, timeoutMs));
      }, timeoutMs);
    });
    const exchange = (async () => {
      const res = await fetchImpl(input, { ...init, signal });
      const body = await readBoundedBody(res, { maxBytes: options.maxBytes ?? upstreamBodyLimits.toolStep, service }).catch(
        (e: unknown) => {
          // Asking again would download the same oversized answer again: passed through
          // unretried, as a timeout is (see UpstreamTimeoutError).
          if (e instanceof AppError && e.details?.limitBytes !== undefined) e.name = 'AbortError';
          throw e;
        },
      );
      return withUrl(new Response(body, { status: res.status, statusText: res.statusText, headers: res.headers }), res.url);
    })();
    try {
      return await Promise.race([exchange, expired]);
    } catch (e) {
      if (timer.signal.aborted && !(init?.signal?.aborted ?? false)) throw new UpstreamTimeoutError(service, timeoutMs);
      throw e;
    } finally {
      clearTimeout(handle);
      // The loser of the race must not surface as an unhandled rejection.
      exchange.catch(() => undefined);
      expired.catch(() => undefined);
    }
  };
  return timed as Fetch;
}
