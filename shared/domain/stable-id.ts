import { createHash } from 'node:crypto';

const alphabet = 'abcdefghijklmnopqrstuvwxyz234567';

function base32(bytes: Buffer): string {
  let out = '';
  let bits = 0;
  let value = 0;
  for (const byte of bytes) {
    value = (value << 8) | byte;
    bits += 8;
    while (bits >= 5) {
      out += alphabet[(value >>> (bits - 5)) & 31];
      bits -= 5;
    }
  }
  if (bits > 0) out += alphabet[(value << (5 - bits)) & 31];
  return out;
}

/**
 * A deterministic id from its parts: `prefix` + 26 base32 characters (130 bits of SHA-256).
 * Parts are joined with a separator no part contains, so ("a", "bc") and ("ab", "c") differ.
 */
export function stableId(prefix: string, parts: readonly string[]): string {
  const digest = createHash('sha256').update(parts.join('\u0000')).digest();
  return `${prefix}${base32(digest).slice(0, 26)}`;
}
