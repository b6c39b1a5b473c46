import { createHash, randomBytes } from 'node:crypto';

/** 32 random bytes, base64url: the state value and the PKCE verifier (43 characters). */
export function randomUrlToken(bytes = 32): string {
  return randomBytes(bytes).toString('base64url');
}

export function sha256Base64url(value: string): string {
  return createHash('sha256').update(value, 'utf8').digest('base64url');
}

/** RFC 7636 S256: BASE64URL(SHA256(ASCII(code_verifier))). */
export function pkceChallenge(verifier: string): string {
  return sha256Base64url(verifier);
}

/**
 * Only the state's hash is stored, so a leaked table row cannot be replayed as a state.
 * Hex, because it is part of a key and must not depend on base64 alphabets.
 */
export function stateHash(state: string): string {
  return createHash('sha256').update(state, 'utf8').digest('hex');
}
