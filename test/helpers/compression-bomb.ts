import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import zlib from 'node:zlib';

/**
 * A hostile upstream: every answer is a small compressed body that inflates to far more
 * than any caller may hold (by default 1 MB of gzip that inflates to 1 GiB of zeros).
 * gzip allows concatenated members, so the body is one 16 MiB member repeated: cheap to
 * build and to send. Deflate and brotli have no such trick: theirs are compressed once and kept.
 */
export type BombEncoding = 'gzip' | 'deflate' | 'br';

const mib = 1024 * 1024;
const bombs = new Map<string, Buffer>();

function compressedZeros(encoding: BombEncoding, decodedMiB: number): Buffer {
  const key = `${encoding}:${decodedMiB}`;
  const kept = bombs.get(key);
  if (kept) return kept;
  let bomb: Buffer;
  if (encoding === 'gzip') {
    const member = zlib.gzipSync(Buffer.alloc(16 * mib), { level: 9 });
    bomb = Buffer.concat(Array.from({ length: Math.ceil(decodedMiB / 16) }, () => member));
  } else {
    // No concatenation trick: compressed whole, so keep these bombs to a few hundred MiB.
    if (decodedMiB > 256) throw new Error('deflate and brotli bombs are built in memory: at most 256 MiB');
    const zeros = Buffer.alloc(decodedMiB * mib);
    bomb =
      encoding === 'deflate'
        ? zlib.deflateSync(zeros, { level: 9 })
        : zlib.brotliCompressSync(zeros, { params: { [zlib.constants.BROTLI_PARAM_QUALITY]: 1 } });
  }
  bombs.set(key, bomb);
  return bomb;
}

export interface BombServer {
  url: string;
  /** Requests seen, as `METHOD /path`. */
  hits: string[];
  close(): Promise<void>;
}

export interface BombOptions {
  encoding?: BombEncoding;
  /**
   * What the body inflates to (default 1024 MiB; `BOMB_MIB` in the environment lowers it, to
   * watch an unbounded reader fail without taking the machine's memory).
   */
  decodedMiB?: number;
  status?: number;
  /** Answer these paths normally instead (e.g. a token endpoint before the bomb). */
  plain?: (req: IncomingMessage, res: ServerResponse) => boolean;
}

/** A loopback server answering every request with a compression bomb declared as JSON. */
export async function startBombServer(options: BombOptions = {}): Promise<BombServer> {
  const encoding = options.encoding ?? 'gzip';
  const body = compressedZeros(encoding, options.decodedMiB ?? (Number(process.env.BOMB_MIB) || 1024));
  const hits: string[] = [];
  const server: Server = createServer((req, res) => {
    hits.push(`${req.method} ${req.url}`);
    req.resume();
    if (options.plain?.(req, res)) return;
    res.writeHead(options.status ?? 200, {
      'content-type': 'application/json; charset=utf-8',
      'content-encoding': encoding,
      'content-length': String(body.length),
    });
    res.end(body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    hits,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/**
 * How much the resident set grew while `run` ran, in MiB, after a collection when exposed.
 * The callers assert a ceiling (100 MiB) far below what an unbounded read of the bomb takes
 * (its whole decoded size): a verdict on memory, not on time.
 */
export async function rssGrowthMiB(run: () => Promise<unknown>): Promise<{ growthMiB: number; result: unknown }> {
  (globalThis as { gc?: () => void }).gc?.();
  const before = process.memoryUsage().rss;
  let peak = before;
  const sampler = setInterval(() => {
    peak = Math.max(peak, process.memoryUsage().rss);
  }, 5);
  let result: unknown;
  try {
    result = await run();
  } catch (e) {
    result = e;
  } finally {
    clearInterval(sampler);
  }
  peak = Math.max(peak, process.memoryUsage().rss);
  return { growthMiB: (peak - before) / mib, result };
}
