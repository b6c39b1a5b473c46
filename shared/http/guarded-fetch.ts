import { lookup as dnsLookup } from 'node:dns';
import http from 'node:http';
import https from 'node:https';
import type { LookupFunction } from 'node:net';
import { Readable } from 'node:stream';
import zlib from 'node:zlib';
import type { Config } from '../config/config';
import { AppError } from '../domain/errors';
import type { Fetch } from '../ports';
import { addressProblem, isIpLiteral, type AddressPolicy } from './address-policy';
import { withUrl } from './timed-fetch';

/**
 * The outbound fetch of the deployed and local runtimes (docs/security.md, section 3: no request to an internal address). Hosts the operator
 * configured (GITHUB_API_URL, the OAuth and collection-service bases, AGENT_RUNTIME_URL,
 * PUBLIC_URL) are trusted and go through the platform fetch. Every other host (a token
 * connection's `apiBaseUrl`, chosen by a caller) is reached through node:http(s) with a
 * `lookup` hook: ALL the addresses the name resolves to are checked against the address
 * policy when each connection is opened, and the connection is refused if any is not
 * allowed. Deciding at connect time, not when the URL was saved, is what stops DNS
 * rebinding (a name that resolved to a public address then, and to 169.254.169.254 now).
 * This path never follows a redirect (the 3xx is the answer) and sends no accept-encoding
 * of its own.
 */

export type Resolver = (host: string) => Promise<Array<{ address: string; family: number }>>;

export interface GuardedFetchOptions {
  /** Origins sent through `passthrough` unchecked: the ones the operator configured. */
  trustedOrigins: readonly string[];
  /** Loopback reachable for every host (the local runtime); never on AWS (the Lambda runtime API listens there). */
  allowLoopback: boolean;
  /** GITHUB_ALLOWED_PRIVATE_HOSTS: lower-case names or IPs that may resolve to private or loopback addresses. */
  allowedPrivateHosts: readonly string[];
  /** Name resolution (default: node:dns lookup, every address). Tests inject one. */
  resolve?: Resolver;
  passthrough?: Fetch;
}

const defaultResolve: Resolver = (host) =>
  new Promise((resolve, reject) => {
    dnsLookup(host, { all: true, verbatim: true }, (err, addresses) => (err ? reject(err) : resolve(addresses)));
  });

function refused(host: string, problem: string): AppError {
  return new AppError('forbidden', `Refused to connect to ${host}: ${problem}`, { reason: 'address_not_allowed', host });
}

/** A `lookup` for net.connect that answers only when every address of `host` is allowed. */
function guardedLookup(resolve: Resolver, policy: AddressPolicy): LookupFunction {
  return (hostname, options, callback) => {
    resolve(hostname).then(
      (addresses) => {
        const bad = addresses.map((a) => addressProblem(a.address, policy)).find((p) => p !== undefined);
        if (addresses.length === 0 || bad) {
          (callback as (err: Error) => void)(refused(hostname, bad ?? 'the name resolves to no address'));
          return;
        }
        const wanted = options.family === 4 || options.family === 6 ? addresses.filter((a) => a.family === options.family) : addresses;
        const list = wanted.length > 0 ? wanted : addresses;
        if (options.all) (callback as (err: null, list: typeof addresses) => void)(null, list);
        else {
          const [first] = list;
          if (first) callback(null, first.address, first.family);
          else (callback as (err: Error) => void)(refused(hostname, 'the name resolves to no address'));
        }
      },
      (e: unknown) => (callback as (err: Error) => void)(e as Error),
    );
  };
}

const nullBodyStatuses = new Set([101, 103, 204, 205, 304]);

function bodyBytes(body: unknown): Buffer | undefined {
  if (body === undefined || body === null) return undefined;
  if (typeof body === 'string') return Buffer.from(body, 'utf8');
  if (body instanceof URLSearchParams) return Buffer.from(body.toString(), 'utf8');
  if (body instanceof ArrayBuffer) return Buffer.from(body);
  if (ArrayBuffer.isView(body)) return Buffer.from(body.buffer, body.byteOffset, body.byteLength);
  throw new TypeError('guarded fetch: only string, URLSearchParams and byte bodies are supported');
}

function decoded(res: http.IncomingMessage): Readable {
  const enc = String(res.headers['content-encoding'] ?? '')
    .trim()
    .toLowerCase();
  if (enc === 'gzip' || enc === 'x-gzip') return res.pipe(zlib.createGunzip());
  if (enc === 'deflate') return res.pipe(zlib.createInflate());
  if (enc === 'br') return res.pipe(zlib.createBrotliDecompress());
  return res;
}

/** One request to an untrusted host over node:http(s), the address checked at connect time. */
function send(
  url: URL,
  init: RequestInit | undefined,
  resolve: Resolver,
  policy: AddressPolicy,
  agents: { http: http.Agent; https: https.Agent },
): Promise<Response> {
  const host = url.hostname.replace(/^\[(.*)\]$/, '$1');
  if (isIpLiteral(host)) {
    const problem = addressProblem(host, policy);
    if (problem) return Promise.reject(refused(host, problem));
  }
  const body = bodyBytes(init?.body);
  const headers: Record<string, string> = {};
  new Headers(init?.headers).forEach((v, k) => {
    headers[k] = v;
  });
  if (body) headers['content-length'] = String(body.length);
  const signal = init?.signal ?? undefined;
  if (signal?.aborted) return Promise.reject(signal.reason);
  const mod = url.protocol === 'https:' ? https : http;
  return new Promise<Response>((resolvePromise, reject) => {
    const req = mod.request(url, {
      method: init?.method ?? 'GET',
      headers,
      agent: url.protocol === 'https:' ? agents.https : agents.http,
      lookup: guardedLookup(resolve, policy),
    });
    const onAbort = () => req.destroy(signal?.reason instanceof Error ? signal.reason : new Error('aborted'));
    signal?.addEventListener('abort', onAbort, { once: true });
    req.on('error', (e) => {
      signal?.removeEventListener('abort', onAbort);
      if (e instanceof AppError || signal?.aborted) reject(e instanceof AppError ? e : signal?.reason);
      else reject(new TypeError('fetch failed', { cause: e }));
    });
    req.on('response', (res) => {
      const status = res.statusCode ?? 502;
      const responseHeaders = new Headers();
      for (let i = 0; i + 1 < res.rawHeaders.length; i += 2) {
        const name = res.rawHeaders[i];
        const value = res.rawHeaders[i + 1];
        if (name !== undefined && value !== undefined) responseHeaders.append(name, value);
      }
      if (nullBodyStatuses.has(status)) {
        res.resume();
        resolvePromise(withUrl(new Response(null, { status, statusText: res.statusMessage, headers: responseHeaders }), url.toString()));
        return;
      }
      const stream = decoded(res);
      stream.on('end', () => signal?.removeEventListener('abort', onAbort));
      // A reader that stops early (a body over its limit) cancels the decoder: the socket goes
      // too, so nothing more is received or inflated for an answer nobody reads.
      stream.once('close', () => {
        signal?.removeEventListener('abort', onAbort);
        if (!res.complete) res.destroy();
      });
      resolvePromise(
        withUrl(
          new Response(Readable.toWeb(stream) as ReadableStream, { status, statusText: res.statusMessage, headers: responseHeaders }),
          url.toString(),
        ),
      );
    });
    req.end(body);
  });
}

/** See the module comment. */
export function guardedFetch(options: GuardedFetchOptions): Fetch {
  const trusted = new Set(options.trustedOrigins);
  const privateHosts = new Set(options.allowedPrivateHosts.map((h) => h.toLowerCase()));
  const resolve = options.resolve ?? defaultResolve;
  const passthrough = options.passthrough ?? ((input, init) => globalThis.fetch(input, init));
  const agents = { http: new http.Agent({ keepAlive: true }), https: new https.Agent({ keepAlive: true }) };
  const guarded = async (input: Parameters<Fetch>[0], init?: Parameters<Fetch>[1]): Promise<Response> => {
    const url = new URL(typeof input === 'string' || input instanceof URL ? input.toString() : input.url);
    if (trusted.has(url.origin)) return passthrough(input, init);
    if (url.protocol !== 'https:' && url.protocol !== 'http:') throw new TypeError(`guarded fetch: ${url.protocol} is not supported`);
    const host = url.hostname.replace(/^\[(.*)\]$/, '$1').toLowerCase();
    const policy: AddressPolicy = { allowLoopback: options.allowLoopback, allowPrivate: privateHosts.has(host) };
    const req =
      typeof input === 'string' || input instanceof URL
        ? init
        : { method: input.method, headers: input.headers, signal: input.signal, ...init };
    return send(url, req, resolve, policy, agents);
  };
  return guarded as Fetch;
}

/** Origins of every URL the operator configured: requests there are not address-checked. */
export function configuredOrigins(config: Config): string[] {
  const urls = [
    config.github.apiUrl,
    config.github.oauthUrl,
    config.contentsnare.apiUrl,
    config.contentsnare.oauthUrl,
    config.publicUrl,
    config.agentRuntimeUrl,
  ];
  return urls.filter((u): u is string => typeof u === 'string' && URL.canParse(u)).map((u) => new URL(u).origin);
}

/**
 * Why a connection may not use `baseUrl` as its own API base, if it may not: its origin is
 * one the operator configured for the product's own calls (the agent runtime, PUBLIC_URL,
 * the OAuth and collection-service origins). Requests there skip the address check because
 * the operator named them; a caller-chosen base there would ride that trust (a token
 * connection pointed at the agent runtime turning `api_call` into a way to reach it).
 * GITHUB_API_URL's own origin is the one exception: it is the code host.
 */
export function operatorOriginRefusal(config: Config, baseUrl: string): AppError | undefined {
  if (!URL.canParse(baseUrl)) return undefined;
  const origin = new URL(baseUrl).origin;
  if (URL.canParse(config.github.apiUrl) && new URL(config.github.apiUrl).origin === origin) return undefined;
  if (!configuredOrigins(config).includes(origin)) return undefined;
  return new AppError(
    'forbidden',
    `A connection's API base may not be ${origin}: that origin is configured for the product's own calls (the agent runtime, PUBLIC_URL, OAuth or the collection service)`,
    { reason: 'operator_origin', origin },
  );
}

/** The runtime's outbound fetch for `config`; `allowLoopback` only in the local runtime. */
export function outboundFetch(config: Config, allowLoopback: boolean): Fetch {
  return guardedFetch({ trustedOrigins: configuredOrigins(config), allowLoopback, allowedPrivateHosts: config.github.allowedPrivateHosts });
}
