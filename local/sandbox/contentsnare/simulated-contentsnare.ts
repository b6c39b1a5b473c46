import { createServer, type IncomingHttpHeaders, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { SimulatedSnareApi, type SimulatedSnareState, type SnareSnapshot } from './simulated-contentsnare-api';
import type { SimulatedSnareWebhooks } from './simulated-contentsnare-webhooks';
import type { OAuthRequest } from '../simulated-oauth';

export { defaultMe, simulatedSnareSeed } from './simulated-contentsnare-api';

/**
 * A simulation of the collection service's partner API on 127.0.0.1, written from the partner API's
 * published reference (the endpoints, fields and answers are in simulated-contentsnare-api.ts). It ENFORCES the documented rate limits: per bearer
 * token, at most `writes` writes (POST/PUT/DELETE) and `reads` reads (GET) in any sliding
 * window of `windowMs`; beyond that 429 with `Retry-After` (seconds). Every request is
 * logged with its arrival time, so tests and the benchmark can check the window from what
 * was accepted. Window and limits are options so tests can scale time down (e.g. 1 s / 20
 * writes); the defaults are the real ones. Anything the reference does not name (a path, a
 * query parameter, a body field) is answered 422/404 AND listed in `problems`.
 */

export type SimulatedKind = 'read' | 'write';

export interface SimulatedLogEntry {
  /** Arrival time (the simulated service's clock, ms). */
  at: number;
  method: string;
  path: string;
  query: URLSearchParams;
  headers: IncomingHttpHeaders;
  token?: string;
  kind: SimulatedKind;
  status: number;
  json?: unknown;
}

export interface ScriptedAnswer {
  status: number;
  headers?: Record<string, string>;
  body?: unknown;
}

export interface SimulatedContentSnareOptions {
  windowMs?: number;
  reads?: number;
  writes?: number;
  /** Time source for the window and the log; tests with a test clock pass theirs. */
  now?: () => number;
  /** Accepted bearer tokens; empty = any non-empty token. */
  tokens?: string[];
  /** The answer of `GET /me` (default: the documented shape, `full_name` only). */
  me?: SimulatedSnareState['me'];
  /** Listen on this loopback port (default: any free one). */
  port?: number;
  /** Keep the request log (default true; the long-running sandbox turns it off). */
  record?: boolean;
  /** The records to start from (the sandbox's state file). */
  restore?: SnareSnapshot;
  /**
   * Called after every write that succeeded, before its answer is sent; an answer it returns
   * replaces the write's (the sandbox refuses a write it cannot keep).
   */
  afterWrite?: () => ScriptedAnswer | undefined;
  /** Answers a request before the partner API when it returns an answer (the sandbox's OAuth pages, outside `/partner_api/v1`). */
  before?: (req: OAuthRequest) => ScriptedAnswer | undefined;
}

export interface SimulatedContentSnare {
  url: string;
  log: SimulatedLogEntry[];
  /** Answers sent before the normal handling, first in first out (e.g. a 429 with Retry-After: 7). */
  script: ScriptedAnswer[];
  tokens: Set<string>;
  /** What a wrong client did: undocumented paths, query parameters, body fields, wrong types. Tests assert it stays empty. */
  problems: string[];
  /** Clients and requests as the simulated service holds them, and the `GET /me` answer (tests may change it). */
  state: SimulatedSnareState;
  /** Every record as plain data (clients, requests, companies, folders, the id sequence). */
  snapshot(): SnareSnapshot;
  restore(s: SnareSnapshot): void;
  /** Webhooks registered, deliveries sent, pages and fields, grants per token. */
  webhooks: SimulatedSnareWebhooks;
  /** Arrival times of accepted requests (not 401/429), optionally of one token and kind. */
  acceptedTimes(filter?: { token?: string; kind?: SimulatedKind }): number[];
  count(status: number): number;
  close(): Promise<void>;
}

/** The documented rate limits: per token and kind, at most `limits[kind]` accepted in any sliding `windowMs`. */
function slidingLimits(windowMs: number, limits: Record<SimulatedKind, number>) {
  const accepted = new Map<string, number[]>();
  /** Counts a request and answers undefined, or the seconds to wait (`Retry-After`) when it is over the limit. */
  return (token: string, kind: SimulatedKind, at: number): number | undefined => {
    const key = `${token}#${kind}`;
    const times = (accepted.get(key) ?? []).filter((t) => t > at - windowMs);
    accepted.set(key, times);
    if (times.length < limits[kind]) {
      times.push(at);
      return undefined;
    }
    const oldest = times[0] ?? at;
    return Math.max(1, Math.ceil((oldest + windowMs - at) / 1000));
  };
}

/** One request as the service reads it, its body as text and (when it parses) JSON. */
interface ArrivedRequest {
  at: number;
  method: string;
  url: URL;
  headers: IncomingHttpHeaders;
  text: string;
  json: unknown;
  unreadable: boolean;
  token: string | undefined;
  kind: SimulatedKind;
}

function arrived(req: IncomingMessage, text: string, at: number): ArrivedRequest {
  const method = req.method ?? 'GET';
  let json: unknown;
  let unreadable = false;
  try {
    json = text ? JSON.parse(text) : undefined;
  } catch {
    unreadable = true;
  }
  return {
    at,
    method,
    url: new URL(req.url ?? '/', 'http://simulated.invalid'),
    headers: req.headers,
    text,
    json,
    unreadable,
    token: /^Bearer (\S+)$/.exec(req.headers.authorization ?? '')?.[1],
    kind: method === 'GET' || method === 'HEAD' ? 'read' : 'write',
  };
}

interface Answering {
  api: SimulatedSnareApi;
  tokens: Set<string>;
  script: ScriptedAnswer[];
  throttle: (token: string, kind: SimulatedKind, at: number) => number | undefined;
  options: SimulatedContentSnareOptions;
}

const prefix = '/partner_api/v1/';

/** The answer to one request: the token, a scripted answer, the rate limit, the body's type, then the partner API. */
function answerOf(r: ArrivedRequest, a: Answering): ScriptedAnswer {
  const { api, tokens, script, throttle, options } = a;
  const early = options.before?.({
    method: r.method,
    path: r.url.pathname,
    query: r.url.searchParams,
    body: r.text,
    contentType: String(r.headers['content-type'] ?? ''),
  });
  if (early) return early;
  if (!r.token || (tokens.size > 0 && !tokens.has(r.token))) return { status: 401, body: { errors: ['Not authorized'] } };
  const scripted = script.shift();
  if (scripted) return scripted;
  const wait = throttle(r.token, r.kind, r.at);
  if (wait !== undefined) return { status: 429, headers: { 'retry-after': String(wait) }, body: { errors: ['Rate limit exceeded'] } };
  if (r.unreadable || (r.text && !String(r.headers['content-type']).startsWith('application/json'))) {
    api.problems.push(`${r.method} ${r.url.pathname}: a body that is not JSON (content-type ${String(r.headers['content-type'])})`);
    return { status: 400, body: { errors: ['body must be JSON'] } };
  }
  if (!r.url.pathname.startsWith(prefix)) {
    api.problems.push(`${r.method} ${r.url.pathname}: outside ${prefix}`);
    return { status: 404, body: { errors: ['Not found'] } };
  }
  const answer = api.handle(r.method, r.url.pathname.slice(prefix.length - 1), r.url.searchParams, r.json, r.token);
  return r.kind === 'write' && answer.status < 400 ? (options.afterWrite?.() ?? answer) : answer;
}

export async function startSimulatedContentSnare(options: SimulatedContentSnareOptions = {}): Promise<SimulatedContentSnare> {
  const now = options.now ?? (() => Date.now());
  const tokens = new Set(options.tokens ?? []);
  const log: SimulatedLogEntry[] = [];
  const script: ScriptedAnswer[] = [];
  const api = new SimulatedSnareApi(now);
  if (options.me) api.state.me = options.me;
  if (options.restore) api.restore(options.restore);
  const throttle = slidingLimits(options.windowMs ?? 10_000, { read: options.reads ?? 50, write: options.writes ?? 20 });

  const server = createServer((req, res) => {
    const at = now();
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const r = arrived(req, Buffer.concat(chunks).toString('utf8'), at);
      const answer = answerOf(r, { api, tokens, script, throttle, options });
      if (options.record !== false) {
        const { method, headers, token, kind, json } = r;
        log.push({ at, method, path: r.url.pathname, query: r.url.searchParams, headers, token, kind, status: answer.status, json });
      }
      const payload = answer.body === undefined ? '' : typeof answer.body === 'string' ? answer.body : JSON.stringify(answer.body);
      res.writeHead(answer.status, { 'content-type': 'application/json', ...answer.headers });
      res.end(payload);
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, '127.0.0.1', resolve);
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    log,
    script,
    tokens,
    problems: api.problems,
    state: api.state,
    snapshot: () => api.snapshot(),
    restore: (s) => api.restore(s),
    webhooks: api.webhooks,
    acceptedTimes: (filter = {}) =>
      log
        .filter((e) => e.status !== 401 && e.status !== 429)
        .filter((e) => (filter.token === undefined || e.token === filter.token) && (filter.kind === undefined || e.kind === filter.kind))
        .map((e) => e.at),
    count: (status) => log.filter((e) => e.status === status).length,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
