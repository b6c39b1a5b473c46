import { createHash, randomBytes } from 'node:crypto';

/**
 * A scoped key as its holder sees it: `aik_<id>.<secret>`. The id names the stored row (so a
 * key is found with one read, and can be listed and revoked without the secret); the secret
 * is 32 random bytes, and only its SHA-256 is stored. A fast hash is enough: the secret is
 * random and long, so there is nothing to brute-force that a slow hash would protect.
 */
const keyPattern = /^aik_([a-z0-9]{20})\.([A-Za-z0-9_-]{43})$/;

export interface MintedKey {
  id: string;
  /** The whole key, shown to its creator once. */
  key: string;
  /** SHA-256 (hex) of the secret part, what the store keeps. */
  secretHash: string;
}

export function hashKeySecret(secret: string): string {
  return createHash('sha256').update(secret, 'utf8').digest('hex');
}

export function mintScopedKey(): MintedKey {
  const id = randomBytes(13).toString('hex').slice(0, 20);
  const secret = randomBytes(32).toString('base64url');
  return { id, key: `aik_${id}.${secret}`, secretHash: hashKeySecret(secret) };
}

/** The id and secret of a presented key, or undefined when it is not shaped like a scoped key. */
export function parseScopedKey(presented: string): { id: string; secret: string } | undefined {
  const m = keyPattern.exec(presented);
  return m ? { id: m[1] as string, secret: m[2] as string } : undefined;
}
