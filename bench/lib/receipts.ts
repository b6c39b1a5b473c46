import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Receipt {
  eventId: string;
  deliveryId: string;
  at: number;
}

/**
 * A fake agent runtime for benchmarks: answers 200 at once and notes when each trigger
 * event arrived (by its delivery id), without keeping bodies (runs hold thousands).
 */
export class ReceiptCounter {
  readonly receipts: Receipt[] = [];
  readonly byEvent = new Map<string, number>();
  private constructor(
    private readonly server: Server,
    readonly url: string,
  ) {}

  static async start(): Promise<ReceiptCounter> {
    let self: ReceiptCounter | undefined;
    const server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const at = Date.now();
        try {
          const e = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { id: string; deliveryId: string };
          self!.receipts.push({ eventId: e.id, deliveryId: e.deliveryId, at });
          self!.byEvent.set(e.id, (self!.byEvent.get(e.id) ?? 0) + 1);
        } catch {
          // counted as nothing: the dispatcher only sends JSON
        }
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end('{"ok":true}');
      });
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    self = new ReceiptCounter(server, `http://127.0.0.1:${(server.address() as AddressInfo).port}/trigger-events`);
    return self;
  }

  /** Distinct events received. */
  get distinct(): number {
    return this.byEvent.size;
  }

  /** Events received more than once. */
  get duplicates(): number {
    return [...this.byEvent.values()].filter((n) => n > 1).length;
  }

  /** Waits until `n` distinct events arrived or `timeoutMs` passed; true when they did. */
  async waitFor(n: number, timeoutMs: number): Promise<boolean> {
    const until = Date.now() + timeoutMs;
    while (this.distinct < n && Date.now() < until) await new Promise((r) => setTimeout(r, 50));
    return this.distinct >= n;
  }

  close(): Promise<void> {
    return new Promise((r) => {
      this.server.closeAllConnections();
      this.server.close(() => r());
    });
  }
}
