import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface FakeSmeeOptions {
  /**
   * Send the raw body too, as `rawdata` (a string), as smee.io's Express server did from
   * mid-2024 until its rewrite on Fastify; the current server sends only the parsed `body`.
   */
  rawdata?: boolean;
  /** Milliseconds between `ping` events (smee.io: 30 s); none when unset. */
  pingMs?: number;
}

export interface FakeSmee {
  /** The channel URL (what WEBHOOK_PROXY_URL is set to, and where hooks post). */
  url: string;
  /** Streams currently open. */
  listeners(): number;
  /** Ends every open stream (the relay dropping the connection). */
  dropStreams(): void;
  /**
   * While true, a request for the stream is answered 503 (the relay unreachable for the
   * reader). Deliveries are still answered 200, as smee.io answers whether anyone listens or not.
   */
  refuseStreams: boolean;
  /** Sends `message` as is to the open streams (what a relay forwards of someone's POST). */
  emit(message: Record<string, unknown>): void;
  /** Stream requests received. */
  streamRequests(): number;
  close(): Promise<void>;
}

/** Fastify's default body limit, which smee.io keeps: a larger delivery is answered 413. */
export const smeeBodyLimit = 1024 * 1024;

/**
 * A relay channel speaking smee.io's format (probot/smee.io lib/server.js, read with
 * smee-client's index.ts): `GET /<channel>` with `Accept: text/event-stream` opens an SSE
 * stream that starts with `event: ready`; `ping` events keep it open; every `POST
 * /<channel>?query` with a JSON body is sent to the open streams as a default (`message`)
 * event, each with an `id:`, whose data is a JSON object of the request's headers
 * (lower-case keys) plus `body` (the JSON body, parsed), `query` and `timestamp`, and is
 * answered 200 whether anyone listens or not. The channel route is exact: a trailing slash
 * is a 404; a body that is not JSON is a 415, one over 1 MiB a 413.
 */
export async function startFakeSmee(options: FakeSmeeOptions = {}): Promise<FakeSmee> {
  const streams = new Set<ServerResponse>();
  let messageId = 0;
  let streamRequests = 0;
  const channel = 'channel-abc123';
  const send = (text: string) => {
    for (const s of streams) {
      // Split across writes, as a network may deliver it.
      s.write(text.slice(0, 10));
      s.write(text.slice(10));
    }
  };
  const emit = (message: Record<string, unknown>) => send(`id: ${messageId++}\ndata: ${JSON.stringify(message)}\n\n`);
  const ping = options.pingMs
    ? setInterval(() => send(`id: ${messageId++}\nevent: ping\ndata: {}\n\n`), options.pingMs).unref()
    : undefined;
  const state = { refuseStreams: false };

  const server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://relay.invalid');
    if (url.pathname !== `/${channel}`) {
      res.writeHead(404, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ message: `Route ${req.method}:${url.pathname} not found`, error: 'Not Found', statusCode: 404 }));
      return;
    }
    if (req.method === 'GET') {
      streamRequests++;
      if (state.refuseStreams || req.headers.accept !== 'text/event-stream') {
        res.writeHead(state.refuseStreams ? 503 : 200, { 'content-type': 'text/html' });
        res.end('<html></html>');
        return;
      }
      res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', connection: 'keep-alive' });
      res.write(`id: ${messageId++}\nevent: ready\ndata: {}\n\n`);
      streams.add(res);
      req.on('close', () => streams.delete(res));
      return;
    }
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (c: Buffer) => {
      size += c.length;
      if (size <= smeeBodyLimit) chunks.push(c);
    });
    req.on('end', () => {
      const answer = (status: number) => {
        res.writeHead(status, { 'content-type': 'text/plain' });
        res.end(status === 200 ? '' : String(status));
      };
      if (size > smeeBodyLimit) return answer(413);
      if (!String(req.headers['content-type'] ?? '').startsWith('application/json')) return answer(415);
      const raw = Buffer.concat(chunks).toString('utf8');
      let body: unknown;
      try {
        body = JSON.parse(raw);
      } catch {
        return answer(400);
      }
      emit({
        ...req.headers,
        body,
        ...(options.rawdata ? { rawdata: raw } : {}),
        query: Object.fromEntries(url.searchParams),
        timestamp: Date.now(),
      });
      answer(200);
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/${channel}`,
    listeners: () => streams.size,
    dropStreams: () => {
      for (const s of streams) s.end();
      streams.clear();
    },
    get refuseStreams() {
      return state.refuseStreams;
    },
    set refuseStreams(v: boolean) {
      state.refuseStreams = v;
    },
    emit,
    streamRequests: () => streamRequests,
    close: () =>
      new Promise<void>((r) => {
        if (ping) clearInterval(ping);
        for (const s of streams) s.end();
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}
