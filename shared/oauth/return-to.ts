import { InvalidInputError } from '../domain/errors';

/**
 * `returnTo` must be an absolute http(s) URL on one of the allowed origins (no open
 * redirect, RFC 9700 4.11). Relative URLs, other schemes, credentials in the URL and
 * look-alike hosts are refused.
 */
export function checkReturnTo(value: string, allowedOrigins: readonly string[]): string {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new InvalidInputError([{ field: 'returnTo', message: 'must be an absolute URL' }]);
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') {
    throw new InvalidInputError([{ field: 'returnTo', message: 'must be an http(s) URL' }]);
  }
  if (url.username !== '' || url.password !== '') {
    throw new InvalidInputError([{ field: 'returnTo', message: 'must not carry credentials' }]);
  }
  if (!allowedOrigins.includes(url.origin)) {
    throw new InvalidInputError([{ field: 'returnTo', message: `origin ${url.origin} is not allowed (ALLOWED_RETURN_ORIGINS)` }]);
  }
  return url.toString();
}

/** `returnTo` with `params` set in its query (existing parameters of the same name replaced). */
export function withQuery(returnTo: string, params: Record<string, string>): string {
  const url = new URL(returnTo);
  for (const [k, v] of Object.entries(params)) url.searchParams.set(k, v);
  return url.toString();
}
