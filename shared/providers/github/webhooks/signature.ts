import { verify } from '@octokit/webhooks-methods';

/** What GitHub sends in `X-Hub-Signature-256`: the algorithm and 64 lower-case hex digits. */
const signatureFormat = /^sha256=[0-9a-f]{64}$/;

/**
 * Checks `X-Hub-Signature-256` against the raw body bytes, failing closed.
 * The format is checked first so that a malformed header (SHA-1 only, truncated,
 * upper-case, doubled, non-hex) is refused without ever reaching the constant-time
 * compare with an unequal length, and nothing here can throw.
 */
export async function verifySignature(secret: string, rawBody: Buffer, header: string | undefined): Promise<boolean> {
  if (!secret || header === undefined || !signatureFormat.test(header)) return false;
  if (rawBody.length === 0) return false;
  // `verify` takes a string; only bytes that survive the UTF-8 round trip unchanged are
  // signed as sent (GitHub's bodies are UTF-8 JSON), so anything else is refused.
  const text = rawBody.toString('utf8');
  if (!Buffer.from(text, 'utf8').equals(rawBody)) return false;
  try {
    return await verify(secret, text, header);
  } catch {
    return false;
  }
}
