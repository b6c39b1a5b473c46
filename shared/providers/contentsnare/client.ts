import { AppError } from '../../domain/errors';
import { networkCause } from '../../http/network-cause';
import type { Connection } from '../../domain/model';
import { resolveEndpoint, type QueryValues } from '../../http/safe-endpoint';
import { sameOriginFetch } from '../../http/same-origin-fetch';
import { silentLogger, type Logger } from '../../observability/logger';
import { noMetrics, type Metrics } from '../../observability/metrics';
import type { Clock, Fetch } from '../../ports';
import type { TokenProvider } from '../../ports/token-provider';
import { realSleep, type ContentSnareRateLimiter, type RateKind, type Sleep } from './rate-limiter';
import { backoffMs, retryAfterMs } from './retry-after';
import { contentSnareHttpError } from './upstream-errors';
import { pickHeaders, readResponseData } from '../../http/read-response';

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

export interface ContentSnareRequest {
  method: HttpMethod;
  /** A path under `/partner_api/v1`: `clients`, `/clients` and `/partner_api/v1/clients` are the same. */
  endpoint: string;
  query?: QueryValues;
  body?: unknown;
}

export interface ContentSnareResponse {
  status: number;
  /** A safe subset of the answer's headers. */
  headers: Record<string, string>;
  /** Parsed JSON, text, or null for an empty body. */
  data: unknown;
}

export interface ContentSnareClientOptions {
  /** CONTENTSNARE_API_URL: the service's host; `/partner_api/v1` is appended. */
  apiUrl: string;
  connection: Connection;
  tokens: TokenProvider;
  fetch: Fetch;
  clock: Clock;
  limiter: ContentSnareRateLimiter;
  sleep?: Sleep;
  logger?: Logger;
  metrics?: Metrics;
  /** 429s answered in a row before giving up with `rate_limited` (default 4). */
  maxThrottleRetries?: number;
  /** Retries of a read after a 5xx or a network failure (default 2). Writes are never retried on those. */
  maxReadRetries?: number;
  requestTimeoutMs?: number;
}

export const partnerApiPath = '/partner_api/v1';
const maxResponseBytes = 5 * 1024 * 1024;
const safeResponseHeaders = ['content-type', 'etag', 'last-modified', 'link', 'location', 'retry-after'];

/** The partner API's base URL for a configured CONTENTSNARE_API_URL. */
export function partnerApiBase(apiUrl: string): string {
  return `${apiUrl.replace(/\/+$/, '')}${partnerApiPath}`;
}

/**
 * The collection service's partner API for one connection. Every call goes through the
 * account's rate limiter, carries the connection's token (never the caller's), and cannot
 * leave `CONTENTSNARE_API_URL`'s origin and `/partner_api/v1` path (URL guard plus a fetch
 * that refuses to follow redirects elsewhere).
 * - 429: waits as `Retry-After` says (or backs off), blocks the account for every worker,
 *   and sends again: a throttled request was not carried out, so even writes are safe.
 * - 401: one forced token refresh and one more try; then `reconnect_required`.
 * - 5xx / network failure: reads are retried; writes are not (they may have happened).
 */
export class ContentSnareClient {
  readonly base: string;
  private token: string | undefined;
  private readonly send: Fetch;
  private readonly sleep: Sleep;
  private readonly logger: Logger;
  private readonly metrics: Metrics;

  constructor(private readonly options: ContentSnareClientOptions) {
    this.base = partnerApiBase(options.apiUrl);
    this.send = sameOriginFetch(options.fetch, this.base);
    this.sleep = options.sleep ?? realSleep;
    this.logger = options.logger ?? silentLogger;
    this.metrics = options.metrics ?? noMetrics;
  }

  /** The URL a request would go to (throws `invalid_input` for endpoints outside the API). */
  url(endpoint: string, query?: QueryValues): URL {
    return resolveEndpoint(this.base, endpoint, query);
  }

  async request(req: ContentSnareRequest): Promise<ContentSnareResponse> {
    const { connection, tokens, clock, limiter } = this.options;
    const url = this.url(req.endpoint, req.query);
    const kind: RateKind = req.method === 'GET' ? 'read' : 'write';
    const body = req.body === undefined ? undefined : JSON.stringify(req.body);
    let refreshed = false;
    let throttled = 0;
    let failures = 0;
    for (;;) {
      // The token first: time spent fetching it must not fall between our slot and the send.
      this.token ??= await tokens.accessToken(connection);
      await limiter.acquire(connection.id, kind);
      let res: Response;
      try {
        res = await this.send(url, {
          method: req.method,
          headers: {
            accept: 'application/json',
            ...(body === undefined ? {} : { 'content-type': 'application/json' }),
            authorization: `Bearer ${this.token}`,
          },
          body,
          signal: AbortSignal.timeout(this.options.requestTimeoutMs ?? 20_000),
        });
      } catch (e) {
        if (e instanceof AppError) throw e;
        if (kind === 'read' && failures < (this.options.maxReadRetries ?? 2)) {
          failures++;
          await this.sleep(backoffMs(failures, 4000, 500));
          continue;
        }
        const timedOut = (e as Error).name === 'TimeoutError';
        const what = timedOut ? 'did not answer in time' : 'could not be reached';
        const cause = timedOut ? undefined : networkCause(e);
        throw new AppError(
          timedOut ? 'timeout' : 'upstream_error',
          `The collection service ${what}${cause ? ` (${cause})` : ''}${kind === 'write' ? '; the write may or may not have happened' : ''}`,
        );
      }
      const headers = pickHeaders(res, safeResponseHeaders);
      // The time limit covers the body too: a stall after the headers is a timeout, not a 500.
      const data = await readResponseData(res, { maxBytes: maxResponseBytes, service: 'the collection service', json: 'always' }).catch(
        (e: unknown) => {
          if ((e as Error).name === 'TimeoutError')
            throw new AppError('timeout', 'The collection service stopped sending its answer before the time limit');
          throw e;
        },
      );
      if (res.status >= 200 && res.status < 300) return { status: res.status, headers, data };

      if (res.status === 429) {
        throttled++;
        const waitMs = retryAfterMs(res.headers.get('retry-after'), clock.now()) ?? backoffMs(throttled, 10_000);
        this.metrics.count('contentsnare_throttled');
        this.logger.warn('collection service answered 429; the account waits', { connectionId: connection.id, waitMs, throttled });
        await limiter.block(connection.id, clock.now() + waitMs);
        if (throttled > (this.options.maxThrottleRetries ?? 4)) {
          throw new AppError('rate_limited', 'The collection service keeps answering 429 for this account', {
            retryAfter: Math.max(1, Math.ceil(waitMs / 1000)),
          });
        }
        continue;
      }
      if (res.status === 401 && !refreshed) {
        refreshed = true;
        this.token = await tokens.accessToken(connection, { forceRefresh: true, rejected: this.token });
        continue;
      }
      if (res.status >= 500 && kind === 'read' && failures < (this.options.maxReadRetries ?? 2)) {
        failures++;
        await this.sleep(backoffMs(failures, 4000, 500));
        continue;
      }
      throw contentSnareHttpError(res.status, data);
    }
  }
}
