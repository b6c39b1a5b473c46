import { AppError } from '../domain/errors';

/**
 * The one reader of answers from outside. An upstream (or anyone who can point a token
 * connection's `apiBaseUrl` at a server of theirs) chooses how big its answer is, and a small
 * compressed body can inflate to gigabytes: fetch decodes gzip, deflate and brotli as the body
 * is read, so the bytes counted here are the DECODED ones. The read stops, and the stream is
 * cancelled (which stops the decoder and closes the connection), as soon as the count passes
 * the limit; nothing past it is buffered.
 */

/** Limits by kind of answer (decoded bytes). Each is far above what its documented answers are. */
export const upstreamBodyLimits = {
  /** A tool step's answer (Octokit steps, both API-call steps): file contents and long lists fit. */
  toolStep: 5 * 1024 * 1024,
  /** The webhook machinery's and the poller's REST answers: a list page of 100 items. */
  rest: 5 * 1024 * 1024,
  /** An OAuth token answer: a few hundred bytes. */
  token: 64 * 1024,
  /** An account look-up (`GET /user`, `GET /partner_api/v1/me`): a few kilobytes. */
  account: 64 * 1024,
} as const;

export interface BodyLimit {
  /** Largest decoded body accepted, in bytes. */
  maxBytes: number;
  /** Who answered, for the message ("the code host"). */
  service: string;
}

const nullBodyStatuses = new Set([101, 103, 204, 205, 304]);

/** The `upstream_error` of an answer over its limit; `details.limitBytes` names the limit. */
export function answerTooLarge(status: number, limit: BodyLimit): AppError {
  return new AppError(
    'upstream_error',
    `The answer of ${limit.service} is larger than ${limit.maxBytes} bytes (after decompression); it was not read further`,
    { status, limitBytes: limit.maxBytes },
  );
}

/**
 * An answer's body bytes, decoded (null when it has none), refused as `upstream_error` when
 * larger than `limit.maxBytes`: on its declared length before reading when that already
 * exceeds it, else as soon as what arrives passes it.
 */
export async function readBoundedBody(res: Response, limit: BodyLimit): Promise<Buffer | null> {
  if (nullBodyStatuses.has(res.status) || !res.body) {
    await res.body?.cancel().catch(() => undefined);
    return null;
  }
  // A declared length counts the encoded bytes: over the limit already, the decoded body is too.
  if (Number(res.headers.get('content-length') ?? 0) > limit.maxBytes) {
    await res.body.cancel().catch(() => undefined);
    throw answerTooLarge(res.status, limit);
  }
  const chunks: Uint8Array[] = [];
  let size = 0;
  const reader = res.body.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > limit.maxBytes) {
      await reader.cancel().catch(() => undefined);
      throw answerTooLarge(res.status, limit);
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks);
}

/** The body as UTF-8 text ('' when there is none), bounded as `readBoundedBody`. */
export async function readBoundedText(res: Response, limit: BodyLimit): Promise<string> {
  return (await readBoundedBody(res, limit))?.toString('utf8') ?? '';
}

/** The body parsed as JSON, undefined when empty or not JSON; bounded as `readBoundedBody`. */
export async function readBoundedJson(res: Response, limit: BodyLimit): Promise<unknown> {
  const text = await readBoundedText(res, limit);
  if (text.length === 0) return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

/** Drops an answer's body unread (a status is all the caller needs): nothing is decoded or kept. */
export async function discardBody(res: Response): Promise<void> {
  await res.body?.cancel().catch(() => undefined);
}
