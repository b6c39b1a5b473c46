import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface FakeSmee {
  /** The channel URL (what WEBHOOK_PROXY_URL is set to, and where hooks post). */
  url: string;
  /** Streams currently open. */
  listeners(): number;
  /** Ends every open stream (the relay dropping the connection). */
  dropStreams(): void;
  close(): Promise<void>;
}

/**
 * A relay channel speaking smee.io's format, as smee-client reads it: `GET <channel>` with
 * `Accept: text/event-stream` opens an SSE stream that starts with `event: ready`; every
 * `POST <channel>?query` is sent to the open streams as a default (`message`) event whose
 * data is a JSON object of the request's headers (lower-case keys) plus `body` (the JSON
 * body, parsed), `query` and `timestamp`; keep-alive comments (`:`) come in between.
 */
export async function startFakeSmee(): Promise<FakeSmee> {
  const streams = new Set<ServerResponse>();
  const server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://relay.invalid');
    if (req.method === 'GET') {
      res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', connection: 'keep-alive' });
      res.write('event: ready\ndata: {}\n\n: keep-alive\n\n');
      streams.add(res);
      req.on('close', () => streams.delete(res));
      return;
    }
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const message = {
        ...req.headers,
        body: JSON.parse(Buffer.concat(chunks).toString('utf8')),
        query: Object.fromEntries(url.searchParams),
        timestamp: Date.now(),
      };
      // Split across writes, as a network may deliver it.
      const text = `data: ${JSON.stringify(message)}\n\n`;
      for (const s of streams) {
        s.write(text.slice(0, 10));
        s.write(`${text.slice(10)}: ping\n\n`);
      }
      res.writeHead(200, { 'content-type': 'text/plain' });
      res.end('ok');
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/channel-abc123`,
    listeners: () => streams.size,
    dropStreams: () => {
      for (const s of streams) s.end();
      streams.clear();
    },
    close: () =>
      new Promise<void>((r) => {
        for (const s of streams) s.end();
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}
