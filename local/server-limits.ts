import type { Server, ServerOptions } from 'node:http';
import { defaultMaxBufferedBytes } from '../shared/http/node-http';

/**
 * The local runtime's HTTP server limits. Node's defaults (no connection cap, 300 s to
 * receive a request, a 30 s check interval) let 150 stalled uploads hold a gigabyte; these
 * cut a stalled client within seconds, bound how many can stall at once and how much of
 * their bodies is held in all. The body limit per route is the router's
 * (shared/http/body-limits.ts).
 */
export interface ServerLimits {
  /** Time to receive a request's headers. */
  headersTimeoutMs: number;
  /** Time to receive a whole request, body included (a stalled or trickled upload is cut with 408). */
  requestTimeoutMs: number;
  /** How often node checks the two timeouts above (its default, 30 s, would double them). */
  checkIntervalMs: number;
  /**
   * How long an idle keep-alive connection stays open (announced as `Keep-Alive: timeout=`).
   * Longer than the idle timeout of what sits in front (a load balancer's or a tunnel's 60 s,
   * nginx's upstream 60 s), so the server never closes a connection the client is about to
   * reuse: node's 5 s lost a delivery now and then to a reset on a reused connection.
   */
  keepAliveTimeoutMs: number;
  /** Open connections at once; more are closed on accept. */
  maxConnections: number;
  /** Request body bytes held at once, all requests together; the request that would pass it gets 503 (node-http.ts). */
  maxBufferedBytes: number;
}

export const defaultServerLimits: ServerLimits = {
  headersTimeoutMs: 10_000,
  // 6 MB in 30 s is 200 KB/s: any real client on the loopback or a LAN, never a trickle.
  requestTimeoutMs: 30_000,
  checkIntervalMs: 1_000,
  keepAliveTimeoutMs: 65_000,
  // 16 closed-loop clients (the benchmark) use 16; the code host opens a few.
  maxConnections: 256,
  // Ten bodies at the largest route limit (6 MB): 256 stalled uploads cannot hold more than this.
  maxBufferedBytes: defaultMaxBufferedBytes,
};

export function serverOptions(limits: Partial<ServerLimits> = {}): ServerOptions {
  const l = { ...defaultServerLimits, ...limits };
  return { headersTimeout: l.headersTimeoutMs, requestTimeout: l.requestTimeoutMs, connectionsCheckingInterval: l.checkIntervalMs };
}

export function limitServer(server: Server, limits: Partial<ServerLimits> = {}): Server {
  const l = { ...defaultServerLimits, ...limits };
  server.maxConnections = l.maxConnections;
  server.keepAliveTimeout = l.keepAliveTimeoutMs;
  return server;
}

/** `HOST`: the interface to listen on. Loopback unless told otherwise (`HOST=0.0.0.0` for every interface). */
export function listenHost(env: Record<string, string | undefined>): string {
  return env.HOST?.trim() || '127.0.0.1';
}

/** The host part of the runtime's own URL: a wildcard address is reached on the loopback. */
export function urlHost(host: string): string {
  if (host === '0.0.0.0' || host === '::') return '127.0.0.1';
  return host.includes(':') ? `[${host}]` : host;
}
