import { readBoundedBody, upstreamBodyLimits } from './bounded-body';

/** The response headers named in `names` that are present, for passing a safe subset on. */
export function pickHeaders(res: Response, names: readonly string[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const name of names) {
    const v = res.headers.get(name);
    if (v !== null) out[name] = v;
  }
  return out;
}

/**
 * An answer's body bytes (null when it has none), bounded as `readBoundedBody` (bounded-body.ts):
 * at `maxBytes` decoded bytes, or `upstreamBodyLimits.toolStep` when none is given.
 */
export async function readLimitedBody(res: Response, maxBytes: number | undefined, service: string): Promise<Buffer | null> {
  return readBoundedBody(res, { maxBytes: maxBytes ?? upstreamBodyLimits.toolStep, service });
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
