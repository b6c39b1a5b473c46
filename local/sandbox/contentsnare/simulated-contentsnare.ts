import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { SimulatedSnareApi, type SimulatedSnareState, type SnareSnapshot } from './simulated-contentsnare-api';
import type { SimulatedSnareWebhooks } from './simulated-contentsnare-webhooks';

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

export async function startSimulatedContentSnare(options: SimulatedContentSnareOptions = {}): Promise<SimulatedContentSnare> {
  const windowMs = options.windowMs ?? 10_000;
  const limits: Record<SimulatedKind, number> = { read: options.reads ?? 50, write: options.writes ?? 20 };
  const now = options.now ?? (() => Date.now());
  const tokens = new Set(options.tokens ?? []);
  const log: SimulatedLogEntry[] = [];
  const script: ScriptedAnswer[] = [];
  const accepted = new Map<string, number[]>();
  const api = new SimulatedSnareApi(now);
  if (options.me) api.state.me = options.me;
  if (options.restore) api.restore(options.restore);
  const prefix = '/partner_api/v1/';

  function throttle(token: string, kind: SimulatedKind, at: number): number | undefined {
    const key = `${token}#${kind}`;
    const times = (accepted.get(key) ?? []).filter((t) => t > at - windowMs);
    accepted.set(key, times);
    if (times.length < limits[kind]) {
      times.push(at);
      return undefined;
    }
    const oldest = times[0] ?? at;
    return Math.max(1, Math.ceil((oldest + windowMs - at) / 1000));
  }

  function route(method: string, path: string, query: URLSearchParams, body: unknown, token: string): ScriptedAnswer {
    if (!path.startsWith(prefix)) {
      api.problems.push(`${method} ${path}: outside ${prefix}`);
      return { status: 404, body: { errors: ['Not found'] } };
    }
    return api.handle(method, path.slice(prefix.length - 1), query, body, token);
  }

  const server = createServer((req, res) => {
    const at = now();
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const method = req.method ?? 'GET';
      const url = new URL(req.url ?? '/', 'http://simulated.invalid');
      const kind: SimulatedKind = method === 'GET' || method === 'HEAD' ? 'read' : 'write';
      const text = Buffer.concat(chunks).toString('utf8');
      let json: unknown;
      let unreadable = false;
      try {
        json = text ? JSON.parse(text) : undefined;
      } catch {
        unreadable = true;
      }
      const auth = /^Bearer (\S+)$/.exec(req.headers.authorization ?? '');
      const token = auth?.[1];
      let answer: ScriptedAnswer;
      if (!token || (tokens.size > 0 && !tokens.has(token))) {
        answer = { status: 401, body: { errors: ['Not authorized'] } };
      } else if (script.length > 0) {
        answer = script.shift() as ScriptedAnswer;
      } else {
        const wait = throttle(token, kind, at);
        if (wait !== undefined)
          answer = { status: 429, headers: { 'retry-after': String(wait) }, body: { errors: ['Rate limit exceeded'] } };
        else if (unreadable || (text && !String(req.headers['content-type']).startsWith('application/json'))) {
          api.problems.push(`${method} ${url.pathname}: a body that is not JSON (content-type ${String(req.headers['content-type'])})`);
          answer = { status: 400, body: { errors: ['body must be JSON'] } };
        } else answer = route(method, url.pathname, url.searchParams, json, token);
        if (kind === 'write' && answer.status < 400) answer = options.afterWrite?.() ?? answer;
      }
      if (options.record !== false)
        log.push({
          at,
          method,
          path: url.pathname,
          query: url.searchParams,
          headers: req.headers,
          token,
          kind,
          status: answer.status,
          json,
        });
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
