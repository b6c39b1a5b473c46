import { AppError } from '../../domain/errors';
import type { Fetch } from '../../ports';

/**
 * A bounded window of a job's log. The code host answers the log request with a redirect to
 * a short-lived signed URL on its log storage; that URL is followed only when it is the code
 * host's own (see `logHostAllowed`), without the token, with no further redirect, within a
 * time limit, and only the window's bytes are kept: a ranged request where the host honours
 * it, else the stream is read through with a rolling window and at most `maxScanBytes` read.
 */

/** Where github.com keeps job logs: its Actions hosts and its results storage accounts. */
const githubLogHosts = [/\.actions\.githubusercontent\.com$/, /^productionresultssa\d+\.blob\.core\.windows\.net$/];

/**
 * Whether a log URL may be fetched: on the API base's own origin (an enterprise server serves
 * its logs itself), or, for github.com, on one of its log hosts over HTTPS. Anything else is
 * refused: the redirect's target is chosen by whoever answers the API call.
 */
export function logHostAllowed(url: URL, apiBase: string): boolean {
  const base = new URL(apiBase);
  if (url.origin === base.origin) return true;
  if (base.hostname !== 'api.github.com' || url.protocol !== 'https:') return false;
  return githubLogHosts.some((pattern) => pattern.test(url.hostname));
}

export interface LogWindow {
  /** Byte offset of the window's first byte. */
  start: number;
  /** Byte offset just past the window's last byte. */
  end: number;
  /** The log's size, when the host said it (or the whole log was read). */
  total: number | null;
  bytes: Buffer;
}

export interface WindowRequest {
  /** Start of the window; undefined: the last `maxBytes` of the log. */
  offset?: number;
  maxBytes: number;
  /** Bytes read through at most when the host ignores the range (a tail needs the whole stream). */
  maxScanBytes: number;
  timeoutMs: number;
}

/** `bytes 10-19/100` (or `bytes * /100` for an unsatisfiable range). */
function contentRange(header: string | null): { start?: number; total: number | null } {
  const m = /^bytes\s+(?:(\d+)-\d+|\*)\/(\d+|\*)$/.exec(header?.trim() ?? '');
  if (!m) return { total: null };
  return { ...(m[1] === undefined ? {} : { start: Number(m[1]) }), total: m[2] === '*' || m[2] === undefined ? null : Number(m[2]) };
}

/** Reads at most `limit` bytes of the body, then stops the stream. */
async function readUpTo(body: ReadableStream<Uint8Array>, limit: number): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  const reader = body.getReader();
  try {
    while (size < limit) {
      const { done, value } = await reader.read();
      if (done) break;
      chunks.push(Buffer.from(value));
      size += value.byteLength;
    }
  } finally {
    await reader.cancel().catch(() => undefined);
  }
  return Buffer.concat(chunks).subarray(0, limit);
}

/** A host that ignored the range: the window is cut from the stream as it passes, never the whole log kept. */
async function windowOfStream(body: ReadableStream<Uint8Array>, req: WindowRequest): Promise<LogWindow> {
  const reader = body.getReader();
  let seen = 0;
  let kept = Buffer.alloc(0);
  let keptStart = 0;
  const wantStart = req.offset;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      const chunk = Buffer.from(value);
      const chunkStart = seen;
      seen += chunk.length;
      if (wantStart === undefined) {
        // A tail: keep the last maxBytes seen so far.
        kept = Buffer.concat([kept, chunk]);
        if (kept.length > req.maxBytes) kept = kept.subarray(kept.length - req.maxBytes);
        keptStart = seen - kept.length;
        if (seen > req.maxScanBytes) {
          throw new AppError(
            'upstream_error',
            `The log is larger than ${req.maxScanBytes} bytes and its host does not answer byte ranges: read it from an offset instead`,
            { limitBytes: req.maxScanBytes },
          );
        }
      } else if (seen > wantStart) {
        const from = Math.max(0, wantStart - chunkStart);
        kept = Buffer.concat([kept, chunk.subarray(from)]);
        keptStart = wantStart;
        if (kept.length >= req.maxBytes)
          return { start: wantStart, end: wantStart + req.maxBytes, total: null, bytes: kept.subarray(0, req.maxBytes) };
      } else if (seen > req.maxScanBytes) {
        throw new AppError(
          'upstream_error',
          `Its host does not answer byte ranges, and the offset is past the ${req.maxScanBytes} bytes read through`,
          {
            limitBytes: req.maxScanBytes,
          },
        );
      }
    }
  } finally {
    await reader.cancel().catch(() => undefined);
  }
  if (wantStart !== undefined && seen <= wantStart) return { start: wantStart, end: wantStart, total: seen, bytes: Buffer.alloc(0) };
  return { start: keptStart, end: keptStart + kept.length, total: seen, bytes: kept };
}

/** The window of the log at `url` (fetched without credentials: the URL carries its own signature). */
export async function fetchLogWindow(fetch: Fetch, url: URL, req: WindowRequest): Promise<LogWindow> {
  const range = req.offset === undefined ? `bytes=-${req.maxBytes}` : `bytes=${req.offset}-${req.offset + req.maxBytes - 1}`;
  const signal = AbortSignal.timeout(req.timeoutMs);
  try {
    const res = await fetch(url, { method: 'GET', headers: { range }, redirect: 'manual', signal });
    if (res.status === 416) {
      await res.body?.cancel().catch(() => undefined);
      const { total } = contentRange(res.headers.get('content-range'));
      const at = req.offset ?? total ?? 0;
      return { start: at, end: at, total, bytes: Buffer.alloc(0) };
    }
    if (res.status === 206 && res.body) {
      const { start, total } = contentRange(res.headers.get('content-range'));
      const bytes = await readUpTo(res.body, req.maxBytes);
      const from = start ?? req.offset ?? (total === null ? 0 : Math.max(0, total - bytes.length));
      return { start: from, end: from + bytes.length, total, bytes };
    }
    if (res.status === 200 && res.body) return await windowOfStream(res.body, req);
    await res.body?.cancel().catch(() => undefined);
    throw new AppError(
      'upstream_error',
      `The log storage answered ${res.status}${res.status >= 300 && res.status < 400 ? ', a redirect, which is not followed' : ''}`,
      {
        status: res.status,
      },
    );
  } catch (e) {
    if (signal.aborted)
      throw new AppError('timeout', `The log storage did not answer within ${req.timeoutMs} ms`, { timeoutMs: req.timeoutMs });
    throw e;
  }
}
