/**
 * Bounds on the shape of what crosses the HTTP edge, beside its size (body-limits.ts): how
 * deep a JSON body may nest, and how large an answer may grow.
 */

/**
 * Deepest nesting of objects and arrays a JSON body may have. The deepest real body (a code
 * host's delivery, a tool step's input, a JSON-RPC call around it) nests about 12 levels;
 * past a few thousand, parsing and validating (both recursive) exhaust the stack.
 */
export const maxJsonDepth = 64;

/**
 * Largest answer body: under Lambda's 6 MB response limit with room for headers and the
 * function URL's envelope. A bigger answer is refused as `answer_too_large`, never sent.
 */
export const maxAnswerBytes = 5 * 1024 * 1024;

const open1 = 0x7b; // {
const open2 = 0x5b; // [
const close1 = 0x7d; // }
const close2 = 0x5d; // ]
const quote = 0x22;
const backslash = 0x5c;

/**
 * How deep `body` nests, scanned on the raw bytes without parsing (so without recursion):
 * brackets inside strings do not count. Stops as soon as `limit` is passed and answers
 * `limit + 1`. Malformed JSON is the parser's to refuse; this only measures.
 */
export function jsonDepth(body: Uint8Array, limit = maxJsonDepth): number {
  let depth = 0;
  let deepest = 0;
  let inString = false;
  for (let i = 0; i < body.length; i++) {
    const b = body[i];
    if (inString) {
      if (b === backslash) i++;
      else if (b === quote) inString = false;
      continue;
    }
    if (b === quote) inString = true;
    else if (b === open1 || b === open2) {
      depth++;
      if (depth > deepest) {
        deepest = depth;
        if (deepest > limit) return deepest;
      }
    } else if (b === close1 || b === close2) depth--;
  }
  return deepest;
}
