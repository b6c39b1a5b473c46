import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One request as the simulated server received it. */
export interface RecordedRequest {
  method: string;
  /** Path and query exactly as sent on the wire, e.g. `/repos/o/r?x=1`. */
  url: string;
  path: string;
  query: URLSearchParams;
  headers: IncomingHttpHeaders;
  body: string;
  /** The body parsed as JSON, when it is JSON. */
  json?: unknown;
}

/** What a handler answers; `body` objects are sent as JSON. */
export interface SimulatedResponse {
  status?: number;
  headers?: Record<string, string>;
  body?: unknown;
}

export type SimulatedHandler = (req: RecordedRequest) => SimulatedResponse | Promise<SimulatedResponse>;

export interface SimulatedServer {
  /** Base URL without trailing slash, e.g. `http://127.0.0.1:41234`. */
  url: string;
  port: number;
  requests: RecordedRequest[];
  /** Replace the handler mid-test. */
  setHandler(handler: SimulatedHandler): void;
  close(): Promise<void>;
}

/**
 * A tiny HTTP server on 127.0.0.1 (port 0) that records every request and answers with
 * `handler`. Use it as the code host or the collection service in tests: assert on
 * `requests` (what was sent), never on module mocks.
 */
export async function startSimulatedHttp(
  handler: SimulatedHandler = () => ({ status: 200, body: {} }),
  options: { port?: number; record?: boolean } = {},
): Promise<SimulatedServer> {
  let current = handler;
  const requests: RecordedRequest[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      const url = req.url ?? '/';
      const parsed = new URL(url, 'http://simulated.invalid');
      let json: unknown;
      try {
        json = body ? JSON.parse(body) : undefined;
      } catch {
        json = undefined;
      }
      const recorded: RecordedRequest = {
        method: req.method ?? 'GET',
        url,
        path: parsed.pathname,
        query: parsed.searchParams,
        headers: req.headers,
        body,
        json,
      };
      // A long-running sandbox does not keep every request; tests do.
      if (options.record !== false) requests.push(recorded);
      Promise.resolve()
        .then(() => current(recorded))
        .then((answer) => {
          const status = answer.status ?? 200;
          const headers: Record<string, string> = { ...answer.headers };
          let payload = '';
          if (answer.body !== undefined && status !== 204 && status !== 304) {
            if (typeof answer.body === 'string') payload = answer.body;
            else {
              payload = JSON.stringify(answer.body);
              headers['content-type'] ??= 'application/json; charset=utf-8';
            }
          }
          res.writeHead(status, headers);
          res.end(payload);
        })
        .catch((e: unknown) => {
          res.writeHead(500, { 'content-type': 'text/plain' });
          res.end(`simulated handler failed: ${(e as Error).message}`);
        });
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, '127.0.0.1', resolve);
  });
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    requests,
    setHandler: (h) => {
      current = h;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** Alias matching the `start(handler)` name other helpers may look for. */
export const start = startSimulatedHttp;
