import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A fake of the collection service's partner API on 127.0.0.1 that ENFORCES its rate
 * limits the way the real one is documented to: per bearer token, at most `writes` writes
 * and `reads` reads in any sliding window of `windowMs`; beyond that 429 with
 * `Retry-After` (seconds). Every request is logged with its arrival time, so tests and the
 * benchmark can check the window from what was accepted. Window and limits are options
 * so tests can scale time down (e.g. 1 s / 20 writes); the defaults are the real ones.
 */

export type FakeKind = 'read' | 'write';

export interface FakeLogEntry {
  /** Arrival time (the fake's clock, ms). */
  at: number;
  method: string;
  path: string;
  query: URLSearchParams;
  headers: IncomingHttpHeaders;
  token?: string;
  kind: FakeKind;
  status: number;
  json?: unknown;
}

export interface ScriptedAnswer {
  status: number;
  headers?: Record<string, string>;
  body?: unknown;
}

export interface FakeContentSnareOptions {
  windowMs?: number;
  reads?: number;
  writes?: number;
  /** Time source for the window and the log; tests with a fake clock pass theirs. */
  now?: () => number;
  /** Accepted bearer tokens; empty = any non-empty token. */
  tokens?: string[];
}

export interface FakeContentSnare {
  url: string;
  log: FakeLogEntry[];
  /** Answers sent before the normal handling, first in first out (e.g. a 429 with Retry-After: 7). */
  script: ScriptedAnswer[];
  tokens: Set<string>;
  /** Arrival times of accepted requests (not 401/429), optionally of one token and kind. */
  acceptedTimes(filter?: { token?: string; kind?: FakeKind }): number[];
  count(status: number): number;
  close(): Promise<void>;
}

type Json = Record<string, unknown>;

export async function startFakeContentSnare(options: FakeContentSnareOptions = {}): Promise<FakeContentSnare> {
  const windowMs = options.windowMs ?? 10_000;
  const limits: Record<FakeKind, number> = { read: options.reads ?? 50, write: options.writes ?? 20 };
  const now = options.now ?? (() => Date.now());
  const tokens = new Set(options.tokens ?? []);
  const log: FakeLogEntry[] = [];
  const script: ScriptedAnswer[] = [];
  const accepted = new Map<string, number[]>();
  const clients = new Map<string, Json>();
  const requests = new Map<string, Json>();
  let seq = 0;

  function throttle(token: string, kind: FakeKind, at: number): number | undefined {
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

  function route(method: string, path: string, query: URLSearchParams, body: unknown): ScriptedAnswer {
    const m = /^\/partner_api\/v1\/(clients|requests)(?:\/([^/]+))?$/.exec(path);
    if (!m) return { status: 404, body: { error: 'not_found' } };
    const [, collection, id] = m;
    const table = collection === 'clients' ? clients : requests;
    if (method === 'GET' && id) {
      const record = table.get(decodeURIComponent(id));
      return record ? { status: 200, body: record } : { status: 404, body: { error: 'not_found' } };
    }
    if (method === 'GET') {
      const all = [...table.values()];
      const limit = Number(query.get('limit') ?? 25);
      const offset = Number(query.get('offset') ?? 0);
      return { status: 200, body: { pagination: { limit, offset, total: all.length }, results: all.slice(offset, offset + limit) } };
    }
    if (method !== 'POST' || id) return { status: 405, body: { error: 'method_not_allowed' } };
    const input = (body && typeof body === 'object' ? body : {}) as Json;
    const errors: Record<string, string[]> = {};
    const required = collection === 'clients' ? ['name', 'email'] : ['client_id', 'template_id', 'name'];
    for (const f of required) if (input[f] === undefined || input[f] === '') errors[f] = ["can't be blank"];
    if (collection === 'clients' && typeof input.email === 'string' && !input.email.includes('@')) errors.email = ['is invalid'];
    if (collection === 'requests' && input.client_id !== undefined && !clients.has(String(input.client_id))) errors.client_id = ['does not exist'];
    if (Object.keys(errors).length > 0) return { status: 422, body: { errors } };
    seq++;
    const record: Json =
      collection === 'clients'
        ? { ...input, id: `cl_${seq}`, created_at: new Date(now()).toISOString() }
        : { ...input, id: `rq_${seq}`, status: 'sent', created_at: new Date(now()).toISOString() };
    table.set(String(record.id), record);
    return { status: 201, body: record };
  }

  const server = createServer((req, res) => {
    const at = now();
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const method = req.method ?? 'GET';
      const url = new URL(req.url ?? '/', 'http://fake.invalid');
      const kind: FakeKind = method === 'GET' || method === 'HEAD' ? 'read' : 'write';
      const text = Buffer.concat(chunks).toString('utf8');
      let json: unknown;
      try {
        json = text ? JSON.parse(text) : undefined;
      } catch {
        json = undefined;
      }
      const auth = /^Bearer (\S+)$/.exec(req.headers.authorization ?? '');
      const token = auth?.[1];
      let answer: ScriptedAnswer;
      if (!token || (tokens.size > 0 && !tokens.has(token))) {
        answer = { status: 401, body: { error: 'invalid_token' } };
      } else if (script.length > 0) {
        answer = script.shift() as ScriptedAnswer;
      } else {
        const wait = throttle(token, kind, at);
        answer = wait === undefined ? route(method, url.pathname, url.searchParams, json) : { status: 429, headers: { 'retry-after': String(wait) }, body: { error: 'rate_limited' } };
      }
      log.push({ at, method, path: url.pathname, query: url.searchParams, headers: req.headers, token, kind, status: answer.status, json });
      const payload = answer.body === undefined ? '' : typeof answer.body === 'string' ? answer.body : JSON.stringify(answer.body);
      res.writeHead(answer.status, { 'content-type': 'application/json', ...answer.headers });
      res.end(payload);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    log,
    script,
    tokens,
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
