import { createHmac, timingSafeEqual } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Store } from '../../shared/ports';

export interface FloorServer {
  url: string;
  close(): Promise<void>;
}

/**
 * The floors the intake is measured against, on a bare node:http server and the same
 * bytes: HMAC-SHA256 over the raw body with a constant-time compare, then JSON.parse
 * (bare floor); plus, when `store` is given, the one conditional write dedupe needs,
 * into the same embedded DynamoDB (durable floor). Nothing else: no routing, no logging.
 */
export async function startFloorServer(secret: string, store?: Store): Promise<FloorServer> {
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      const given = Buffer.from(String(req.headers['x-hub-signature-256'] ?? ''));
      const want = Buffer.from(`sha256=${createHmac('sha256', secret).update(body).digest('hex')}`);
      if (given.length !== want.length || !timingSafeEqual(given, want)) {
        res.writeHead(401).end();
        return;
      }
      JSON.parse(body.toString('utf8'));
      if (!store) {
        res.writeHead(202).end('{"ok":true}');
        return;
      }
      const guid = String(req.headers['x-github-delivery']);
      store.put({ pk: `FLOOR#${guid}`, sk: 'DLV', ttl: Math.floor(Date.now() / 1000) + 3600 }, { ifNotExists: true }).then(
        () => res.writeHead(202).end('{"ok":true}'),
        () => res.writeHead(200).end('{"duplicate":true}'),
      );
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () =>
      new Promise((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}
