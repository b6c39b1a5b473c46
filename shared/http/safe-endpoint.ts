import { InvalidInputError, type FieldProblem } from '../domain/errors';

/**
 * The guard of both generic "API call" steps (RELIABILITY.md 26-28): the caller names a
 * path relative to the service's base URL, and the request can never leave that base's
 * origin and path, whatever the spelling. Checked before any I/O.
 */

export type QueryValues = Record<string, string | number | boolean>;

const maxEndpointLength = 2048;
// Control characters (C0, DEL, C1) and whitespace of every kind: none belong in a path.
// biome-ignore lint/suspicious/noControlCharactersInRegex: matching control characters is this guard's job (they must never reach a URL path)
const controlOrSpace = /[\u0000-\u0020\u007f-\u009f\u00a0\u1680\u2000-\u200f\u2028\u2029\u202f\u205f\u3000\ufeff]/;
const schemeLike = /^[A-Za-z][A-Za-z0-9+.-]*:/;

/** Decodes percent-escapes repeatedly (double encodings such as `%252e`), at most 4 rounds. */
function decodeFully(s: string): string | undefined {
  let current = s;
  for (let i = 0; i < 4; i++) {
    let next: string;
    try {
      next = decodeURIComponent(current);
    } catch {
      return undefined;
    }
    if (next === current) return current;
    current = next;
  }
  // Still changing after 4 rounds: nobody legitimate encodes that deep.
  return undefined;
}

/**
 * Why `endpoint` is not an acceptable relative path, or undefined when it is.
 * Structural only (no base URL needed), so input schemas can run it at validation time.
 */
export function endpointProblem(endpoint: string): string | undefined {
  if (endpoint.length === 0) return 'must not be empty';
  if (endpoint.length > maxEndpointLength) return `must be at most ${maxEndpointLength} characters`;
  if (controlOrSpace.test(endpoint)) return 'must not contain control characters or spaces';
  if (endpoint.includes('\\')) return 'must not contain backslashes';
  if (endpoint.includes('#')) return 'must not contain a fragment (#)';
  if (endpoint.startsWith('//')) return 'must be a path relative to the API base, not a host (//host)';
  if (schemeLike.test(endpoint)) return 'must be a path relative to the API base, not an absolute URL';
  if (endpoint.startsWith('@')) return 'must be a path relative to the API base, not a host (@host)';
  const [rawPath = ''] = endpoint.split('?', 1);
  const decoded = decodeFully(rawPath);
  if (decoded === undefined) return 'has a malformed or too deeply nested percent-encoding';
  if (controlOrSpace.test(decoded)) return 'must not contain encoded control characters or spaces';
  if (decoded.includes('\\')) return 'must not contain encoded backslashes';
  if (decoded.startsWith('//') || /^\/?@/.test(decoded)) return 'must not name a host, even percent-encoded';
  if (decoded.split('/').some((seg) => seg === '..' || seg === '.')) return 'must not contain "." or ".." segments (in any encoding)';
  const rawQuery = endpoint.slice(rawPath.length + 1);
  if (rawQuery && decodeFully(rawQuery) === undefined) return 'has a malformed percent-encoding in its query';
  return undefined;
}

function baseOf(base: string): { origin: string; basePath: string } {
  const u = new URL(base);
  return { origin: u.origin, basePath: u.pathname.replace(/\/+$/, '') };
}

/** True when `url` is on `base`'s origin and under its path (e.g. `/api/v3`), without credentials. */
export function isWithinBase(url: URL, base: string): boolean {
  const { origin, basePath } = baseOf(base);
  if (url.origin !== origin || url.username !== '' || url.password !== '') return false;
  return basePath === '' || url.pathname === basePath || url.pathname.startsWith(`${basePath}/`);
}

/**
 * The URL for `endpoint` under `base`, with `query` merged in (it overrides parameters of
 * the same name written in the endpoint). Throws `invalid_input` naming `field`.
 * A leading base path (`/api/v3/...` on an enterprise server) is accepted once, not doubled.
 */
export function resolveEndpoint(base: string, endpoint: string, query?: QueryValues, field = 'input.endpoint'): URL {
  const fail = (message: string): never => {
    throw new InvalidInputError([{ field, message }]);
  };
  if (typeof endpoint !== 'string') fail('must be a string');
  const problem = endpointProblem(endpoint);
  if (problem) fail(problem);
  const { origin, basePath } = baseOf(base);
  const q = endpoint.indexOf('?');
  let path = q === -1 ? endpoint : endpoint.slice(0, q);
  const search = q === -1 ? '' : endpoint.slice(q);
  if (!path.startsWith('/')) path = `/${path}`;
  if (basePath !== '' && (path === basePath || path.startsWith(`${basePath}/`))) path = path.slice(basePath.length) || '/';
  const built = `${basePath}${path}`;
  const url = new URL(`${origin}${built}${search}`);
  for (const [k, v] of Object.entries(query ?? {})) url.searchParams.set(k, String(v));
  // Belt and braces: the parser must not have normalised the path into somewhere else.
  if (!isWithinBase(url, base) || url.pathname !== built) fail('resolves outside the API base URL');
  return url;
}

/** Headers the caller may never set: credentials, routing and message framing are ours. */
const forbiddenExact = new Set([
  'authorization',
  'cookie',
  'cookie2',
  'host',
  'forwarded',
  'transfer-encoding',
  'content-length',
  'connection',
  'keep-alive',
  'upgrade',
  'te',
  'trailer',
  'expect',
  'x-real-ip',
  'x-http-method-override',
]);
const forbiddenPrefixes = ['x-forwarded-', 'proxy-'];
const tokenChars = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
// biome-ignore lint/suspicious/noControlCharactersInRegex: matching control characters is this guard's job (CR/LF and other C0 in a header value allow header injection)
const badValueChars = /[\u0000-\u0008\u000a-\u001f\u007f]/;
// biome-ignore lint/suspicious/noControlCharactersInRegex: the range starts at U+0000 on purpose: everything outside Latin-1 is refused in a header value
const beyondLatin1 = /[^\u0000-\u00ff]/;

/** Why the caller may not send header `name: value`, or undefined when it may. */
export function headerProblem(name: string, value: unknown): string | undefined {
  const lower = name.toLowerCase();
  if (/[\r\n]/.test(name)) return 'header names must not contain CR or LF';
  if (!tokenChars.test(name)) return 'is not a valid header name';
  if (forbiddenExact.has(lower) || forbiddenPrefixes.some((p) => lower.startsWith(p))) {
    return `the ${name} header cannot be set: credentials, host and framing headers are applied by the platform`;
  }
  if (typeof value !== 'string') return 'header values must be strings';
  if (/[\r\n]/.test(value)) return 'header values must not contain CR or LF';
  if (badValueChars.test(value)) return 'header values must not contain control characters';
  // HTTP carries header values as bytes; fetch refuses anything past U+00FF (a TypeError, once a 500).
  if (beyondLatin1.test(value)) return 'header values must be Latin-1 (ISO-8859-1) text; percent-encode other characters';
  return undefined;
}

/** Problems with caller-supplied headers, one per bad header, under `root` (e.g. `input.headers`). */
export function headerProblems(headers: Record<string, unknown> | undefined, root = 'input.headers'): FieldProblem[] {
  const problems: FieldProblem[] = [];
  const seen = new Set<string>();
  for (const [name, value] of Object.entries(headers ?? {})) {
    const field = `${root}.${name}`;
    const problem = headerProblem(name, value);
    if (problem) problems.push({ field, message: problem });
    else if (seen.has(name.toLowerCase())) problems.push({ field, message: 'is given more than once (header names are case-insensitive)' });
    seen.add(name.toLowerCase());
  }
  return problems;
}

/** Caller headers with lower-cased names, or `invalid_input` naming each refused header. */
export function sanitizeHeaders(headers: Record<string, unknown> | undefined, root = 'input.headers'): Record<string, string> {
  const problems = headerProblems(headers, root);
  if (problems.length > 0) throw new InvalidInputError(problems);
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers ?? {})) out[name.toLowerCase()] = String(value);
  return out;
}
