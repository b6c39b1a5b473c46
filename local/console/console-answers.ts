import { randomBytes } from 'node:crypto';
import { AppError } from '../../shared/domain/errors';
import { prefersHtml } from '../../shared/http/html';
import { errorResponse } from '../../shared/http/responses';
import type { HttpResponse, RouteRequest } from '../../shared/http/types';
import { loginPage } from './render';

/** No inline script or style; the script and stylesheet are this server's files; forms post here only; the script fetches from here only (live updates). */
function csp(nonce: string, formOrigins: readonly string[]): string {
  const formAction = ["'self'", ...formOrigins].join(' ');
  return `default-src 'none'; script-src 'nonce-${nonce}'; style-src 'self'; img-src 'self'; connect-src 'self'; form-action ${formAction}; frame-ancestors 'none'; base-uri 'none'`;
}

/** A console page; `formOrigins`: where else its forms may lead (a browser holds a form's redirects to the same rule). */
export function html(
  status: number,
  body: string,
  nonce: string,
  extra: Record<string, string> = {},
  formOrigins: readonly string[] = [],
): HttpResponse {
  return {
    status,
    headers: {
      'content-type': 'text/html; charset=utf-8',
      'content-security-policy': csp(nonce, formOrigins),
      'x-frame-options': 'DENY',
      // same-origin, not no-referrer: under no-referrer a browser posts the forms with `Origin: null`.
      'referrer-policy': 'same-origin',
      ...extra,
    },
    body,
  };
}

export const see = (location: string, extra: Record<string, string> = {}): HttpResponse => ({
  status: 303,
  headers: { location, ...extra },
  body: '',
});

export const nonce = () => randomBytes(18).toString('base64url');

/** A console form's fields: the console posts forms, never JSON. */
export function form(req: RouteRequest): URLSearchParams {
  const type = req.headers['content-type'] ?? '';
  if (!type.startsWith('application/x-www-form-urlencoded')) {
    throw new AppError('invalid_input', 'Console forms post application/x-www-form-urlencoded', {
      fields: [{ field: '(body)', message: 'expected a form' }],
    });
  }
  return new URLSearchParams(req.body.toString('utf8'));
}

export const forbidden = () =>
  errorResponse(new AppError('forbidden', 'Cross-site request, or a missing or wrong CSRF token: use the console page itself'));

/** Not signed in: the login page for a browser, the JSON error for any other client. */
export function unauthorized(req: RouteRequest, error?: string): HttpResponse {
  if (!prefersHtml(req.headers.accept)) {
    return errorResponse(
      new AppError(
        'unauthorized',
        'Missing or wrong bearer key (Authorization: Bearer <PLATFORM_API_KEY>), or sign in on the console page',
      ),
    );
  }
  const n = nonce();
  return html(401, loginPage(n, error), n);
}

/** A client guessing keys: told when to try again, its key not compared. */
export function throttled(req: RouteRequest, retryAfter: number): HttpResponse {
  const message = `Too many wrong keys from this client; try again in ${retryAfter} s`;
  const headers = { 'retry-after': String(retryAfter) };
  if (!prefersHtml(req.headers.accept)) {
    const answer = errorResponse(new AppError('rate_limited', message, { retryAfter }));
    return { ...answer, headers: { ...answer.headers, ...headers } };
  }
  const n = nonce();
  return html(429, loginPage(n, message), n, headers);
}
