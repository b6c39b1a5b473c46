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
  const tooLarge = () =>
    new AppError('upstream_error', `The answer of ${options.service} is larger than ${options.maxBytes} bytes`, { status: res.status });
  if (Number(res.headers.get('content-length') ?? 0) > options.maxBytes) {
    await res.body?.cancel().catch(() => undefined);
    throw tooLarge();
  }
  const bytes = Buffer.from(await res.arrayBuffer());
  if (bytes.length > options.maxBytes) throw tooLarge();
  if (bytes.length === 0) return null;
  const text = bytes.toString('utf8');
  if (options.json === 'when-declared' && !/json/i.test(res.headers.get('content-type') ?? '')) return text;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}
