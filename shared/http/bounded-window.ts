/**
 * A window of a long text answer (a diff, a log) read from the stream without holding the
 * rest: bytes before `offset` are counted and dropped, at most `maxBytes` after it are kept,
 * and the stream is cancelled (which closes the connection) as soon as the window is full.
 * The window ends at a line break when one is in it, else at a character boundary, so that a
 * caller reading window after window from `nextOffset` never splits a line or a character.
 */

export interface TextWindow {
  text: string;
  /** Where the window starts, in bytes of the decoded body. */
  offset: number;
  /** Bytes in the window. */
  bytes: number;
  /** Where the next window starts; null when the body ended in this one. */
  nextOffset: number | null;
}

/** The end of a full window: after its last line break, else before a cut UTF-8 character. */
function cutPoint(window: Buffer): number {
  const lastBreak = window.lastIndexOf(0x0a);
  if (lastBreak >= 0) return lastBreak + 1;
  let end = window.length;
  // Step back over continuation bytes (10xxxxxx) to the start of the cut character.
  while (end > 0 && ((window[end - 1] ?? 0) & 0xc0) === 0x80) end--;
  const lead = window[end - 1] ?? 0;
  const width = lead >= 0xf0 ? 4 : lead >= 0xe0 ? 3 : lead >= 0xc0 ? 2 : 1;
  return end > 0 && window.length - (end - 1) < width ? end - 1 : window.length;
}

/** Reads `[offset, offset + maxBytes)` of the answer's decoded body, and whether more follows. */
export async function readTextWindow(res: Response, window: { offset: number; maxBytes: number }): Promise<TextWindow> {
  const empty = { text: '', offset: window.offset, bytes: 0, nextOffset: null };
  if (!res.body) return empty;
  const reader = res.body.getReader();
  const kept: Buffer[] = [];
  let seen = 0;
  let keptBytes = 0;
  let more = false;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      const chunk = Buffer.from(value.buffer, value.byteOffset, value.byteLength);
      const start = Math.max(0, window.offset - seen);
      seen += chunk.length;
      if (start >= chunk.length) continue;
      const room = window.maxBytes - keptBytes;
      const part = chunk.subarray(start, start + room);
      kept.push(part);
      keptBytes += part.length;
      if (chunk.length - start > room) {
        more = true;
        break;
      }
    }
  } finally {
    await reader.cancel().catch(() => undefined);
  }
  const full = Buffer.concat(kept);
  const end = more ? cutPoint(full) : full.length;
  // A window of one line longer than maxBytes still moves on: it is cut at a character boundary.
  const taken = end > 0 ? end : full.length;
  return {
    text: full.subarray(0, taken).toString('utf8'),
    offset: window.offset,
    bytes: taken,
    nextOffset: more || taken < full.length ? window.offset + taken : null,
  };
}
