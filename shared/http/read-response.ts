import { AppError } from '../domain/errors';

/** The response headers named in `names` that are present, for passing a safe subset on. */
export function pickHeaders(res: Response, names: readonly string[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const name of names) {
    const v = res.headers.get(name);
    if (v !== null) out[name] = v;
  }
  return out;
}

const nullBodyStatuses = new Set([101, 103, 204, 205, 304]);

/**
 * An answer's body bytes (null when it has none), refused as `upstream_error` when larger
 * than `maxBytes`: on its declared length before reading, else as soon as the stream passes
 * it, without buffering the rest.
 */
export async function readLimitedBody(res: Response, maxBytes: number | undefined, service: string): Promise<Buffer | null> {
  if (nullBodyStatuses.has(res.status) || !res.body) {
    await res.body?.cancel().catch(() => undefined);
    return null;
  }
  const tooLarge = () =>
    new AppError('upstream_error', `The answer of ${service} is larger than ${maxBytes} bytes`, { status: res.status });
  if (maxBytes !== undefined && Number(res.headers.get('content-length') ?? 0) > maxBytes) {
    await res.body.cancel().catch(() => undefined);
    throw tooLarge();
  }
  const chunks: Uint8Array[] = [];
  let size = 0;
  const reader = res.body.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (maxBytes !== undefined && size > maxBytes) {
      await reader.cancel().catch(() => undefined);
      throw tooLarge();
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks);
}

export interface ReadResponseOptions {
  maxBytes: number;
  /** Who answered, for the error message ("the code host"). */
  service: string;
  /** Parse JSON always, or only when the answer says it is JSON. */
  json: 'always' | 'when-declared';
}

/**
 * An upstream answer's body for a generic API-call step: null when empty, parsed JSON, or
 * the text when it is not JSON. Answers over `maxBytes` are `upstream_error`, refused on
 * their declared length before reading when they declare one.
 */
export async function readResponseData(res: Response, options: ReadResponseOptions): Promise<unknown> {
  const bytes = await readLimitedBody(res, options.maxBytes, options.service);
  if (!bytes || bytes.length === 0) return null;
  const text = bytes.toString('utf8');
  if (options.json === 'when-declared' && !/json/i.test(res.headers.get('content-type') ?? '')) return text;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}
