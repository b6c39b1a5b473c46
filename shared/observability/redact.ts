import { errorCodes } from '../domain/errors';

/**
 * What never reaches a log line: tokens, client secrets, OAuth codes, PKCE verifiers,
 * refresh tokens, signatures, keys. Two nets: by KEY (any value under a sensitive name,
 * whatever it looks like: Content Snare tokens carry no recognizable prefix), and by
 * VALUE (credential-shaped substrings wherever they hide: in messages, stacks, URLs,
 * form bodies and JSON quoted inside an error message).
 */
export const redacted = '[REDACTED]';

const sensitiveKey =
  /token|secret|password|passwd|authorization|cookie|verifier|credential|signature|api[-_]?key|private[-_]?key|session|^code$|^state$/i;

/**
 * `code` is also the name of error codes, and `state` of an issue's or a run's state, which
 * operators need: those stay. An OAuth code or state never looks like them.
 */
const knownCodes = new Set<string>(errorCodes);
const harmlessCode = (v: unknown) =>
  typeof v === 'number' || (typeof v === 'string' && (knownCodes.has(v) || /^E[A-Z_]{2,}$/.test(v) || /^ERR_[A-Z_]+$/.test(v)));

/** Names whose values are secret in query strings, form bodies and JSON text. */
const secretParam =
  '(?:code|state|code_verifier|code_challenge|access_token|refresh_token|id_token|token|client_secret|password|secret|api_key|apikey|key|signature|sig)';

const valuePatterns: Array<[RegExp, string]> = [
  // Code-host tokens (classic, fine-grained, OAuth, user-to-server, server-to-server, refresh).
  // An App's installation token may be stateless: `ghs_` then a JWT (base64url parts joined by
  // dots, `-` and `_` inside), so the match runs on across dots and dashes; a dot that ends a
  // sentence is left.
  [/\bgh[pousr]_[A-Za-z0-9_-]{8,}(?:\.[A-Za-z0-9_-]+)*/g, redacted],
  [/\bgithub_pat_[A-Za-z0-9_-]{8,}(?:\.[A-Za-z0-9_-]+)*/g, redacted],
  // A bare JWT (the App's own, an id token): header and payload are base64url JSON (`eyJ`).
  [/\beyJ[A-Za-z0-9_-]{6,}\.[A-Za-z0-9_-]{6,}(?:\.[A-Za-z0-9_-]*)?/g, redacted],
  // A scoped key `aik_<id>.<secret>`: the id names the key for an operator, the secret goes.
  [/\b(aik_[a-z0-9]{20})\.[A-Za-z0-9_-]{16,}/g, `$1.${redacted}`],
  // HTTP auth schemes, whatever the credential's length.
  [/\b(Bearer)\s+(?!\[REDACTED\])[A-Za-z0-9._~+/=-]+/gi, `$1 ${redacted}`],
  [/\bBasic\s+[A-Za-z0-9+/]{8,}=*/g, `Basic ${redacted}`],
  // The code host's `Authorization: token <t>`; only long opaque words, so prose ("token expired") stays.
  [/\b(token)\s+(?=[A-Za-z0-9._-]*\d)[A-Za-z0-9._-]{16,}/g, `$1 ${redacted}`],
  // Webhook / event signatures.
  [/\bsha(1|256)=[0-9a-fA-F]{16,}/g, `sha$1=${redacted}`],
  // ?code=...&state=..., form bodies code_verifier=...&client_secret=... (value up to & # space quote).
  [new RegExp(`([?&;]|\\b)(${secretParam})=(?!\\[REDACTED\\])[^&#\\s"'<>]+`, 'gi'), `$1$2=${redacted}`],
  // "refresh_token":"...", 'client_secret': '...' inside text (an upstream error body in a message).
  // The name's letters around the word are bounded: unbounded, a long run of letters (a 300 KB
  // value from outside) made every start position scan the whole run, quadratic in its length.
  [
    /(["']?)([A-Za-z_-]{0,64}(?:token|secret|password|verifier|code|signature|authorization)[A-Za-z_-]{0,64})\1(\s*[:=]\s*)(["'])(?!\[REDACTED\])[^"']*\4/gi,
    `$1$2$1$3$4${redacted}$4`,
  ],
];

/** Credential-shaped substrings of a string, replaced. */
export function scrub(text: string): string {
  let out = text;
  for (const [pattern, replacement] of valuePatterns) out = out.replace(pattern, replacement);
  return out;
}

function isSensitiveKey(key: string, value: unknown): boolean {
  if (!sensitiveKey.test(key)) return false;
  const k = key.toLowerCase();
  if (k === 'code') return !harmlessCode(value);
  if (k === 'state') return !(typeof value === 'string' && /^[a-z_]{1,20}$/.test(value));
  return true;
}

/**
 * A copy of `value` safe to log. Errors become plain objects (name, message, stack, code,
 * cause, details) with every string scrubbed; URLs, Maps, Headers-like objects and
 * Buffers are flattened first, so nothing reaches a serializer unredacted.
 */
export function redact(value: unknown, depth = 0): unknown {
  if (depth > 8) return '[depth]';
  if (typeof value === 'string') return scrub(value);
  if (value === null || typeof value !== 'object') return value;
  if (value instanceof Error) return redactError(value, depth);
  if (value instanceof URL) return scrub(value.toString());
  if (value instanceof Date) return value.toISOString();
  if (Buffer.isBuffer(value) || value instanceof Uint8Array) return `[${value.byteLength} bytes]`;
  if (Array.isArray(value)) return value.map((v) => redact(v, depth + 1));
  if (value instanceof Map)
    return redactEntries(
      [...value.entries()].map(([k, v]) => [String(k), v]),
      depth,
    );
  const entries = (value as { entries?: unknown }).entries;
  if (typeof entries === 'function' && typeof (value as { get?: unknown }).get === 'function' && !isPlain(value)) {
    // Headers, URLSearchParams, FormData: iterate as [name, value] pairs.
    return redactEntries([...(entries.call(value) as Iterable<[string, unknown]>)], depth);
  }
  return redactEntries(Object.entries(value), depth);
}

function isPlain(value: object): boolean {
  const proto = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

function redactEntries(entries: Array<[string, unknown]>, depth: number): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of entries) out[k] = isSensitiveKey(k, v) ? redacted : redact(v, depth + 1);
  return out;
}

function redactError(e: Error, depth: number): Record<string, unknown> {
  const extra = e as Error & { code?: unknown; details?: unknown; cause?: unknown; status?: unknown };
  const out: Record<string, unknown> = { name: e.name, message: scrub(e.message) };
  if (extra.code !== undefined) out.code = harmlessCode(extra.code) ? extra.code : redact(extra.code, depth + 1);
  if (typeof extra.status === 'number') out.status = extra.status;
  if (extra.details !== undefined) out.details = redact(extra.details, depth + 1);
  if (e.stack) out.stack = scrub(e.stack);
  if (extra.cause !== undefined) out.cause = redact(extra.cause, depth + 1);
  return out;
}
