import { createHash, timingSafeEqual } from 'node:crypto';

const sha256 = (s: string) => createHash('sha256').update(s, 'utf8').digest();

/**
 * Constant-time equality of two secrets (keys, signatures, CSRF tokens, binding hashes),
 * whatever their lengths: both are hashed first, so neither the content nor the length of
 * the expected value leaks through timing.
 */
export function sameSecret(a: string, b: string): boolean {
  return timingSafeEqual(sha256(a), sha256(b));
}
