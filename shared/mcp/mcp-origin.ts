import type { Config } from '../config/config';
import { AppError } from '../domain/errors';
import { errorResponse } from '../http/responses';
import type { HttpResponse, RequestHead } from '../http/types';

/**
 * Where an MCP request may come from (the transport's security rules, against DNS rebinding):
 *
 * - `Origin`, when a browser sent one, must be the product's own (PUBLIC_URL's origin), one of
 *   the platform's web origins (ALLOWED_RETURN_ORIGINS), or, for a request that arrives over
 *   loopback, a loopback origin (a client running on the same machine); anything else is 403.
 *   No `Origin` (a program, not a browser) is fine: the bearer key decides.
 * - `Host`, for a request that arrives over loopback: a rebinding page reaches a loopback
 *   server under its own name, so the name must be a loopback one or PUBLIC_URL's host (a
 *   tunnel's forwarder connects over loopback with the public name).
 *
 * On AWS no request arrives over loopback: only the Origin rule applies there.
 */
export function mcpOriginRefusal(
  config: Pick<Config, 'publicUrl' | 'allowedReturnOrigins'>,
): (head: RequestHead) => HttpResponse | undefined {
  const publicUrl = new URL(config.publicUrl);
  const trusted = new Set([publicUrl.origin, ...config.allowedReturnOrigins]);
  return (head) => {
    const overLoopback = isLoopbackAddress(head.clientAddress);
    const host = head.headers.host;
    if (overLoopback && host !== undefined && !isLoopbackName(hostName(host)) && host.toLowerCase() !== publicUrl.host) {
      return refuse(`Host ${host} is not this server's name: a loopback server answers only to loopback names or ${publicUrl.host}`, {
        host,
      });
    }
    const origin = head.headers.origin;
    if (origin === undefined) return undefined;
    const parsed = originOf(origin);
    if (parsed !== undefined && (trusted.has(parsed.origin) || (overLoopback && isLoopbackName(parsed.hostname)))) return undefined;
    return refuse(`Origin ${origin} may not call the MCP endpoint: only ${[...trusted].join(', ')} may`, { origin });
  };
}

function refuse(message: string, details: Record<string, unknown>): HttpResponse {
  return errorResponse(new AppError('forbidden', message, details));
}

function originOf(value: string): URL | undefined {
  try {
    const u = new URL(value);
    return u.protocol === 'http:' || u.protocol === 'https:' ? u : undefined;
  } catch {
    return undefined;
  }
}

/** The name part of a Host header: `[::1]:3000` -> `[::1]`, `localhost:3000` -> `localhost`. */
function hostName(host: string): string {
  const h = host.trim().toLowerCase();
  if (h.startsWith('[')) return h.slice(0, h.indexOf(']') + 1);
  return h.replace(/:\d+$/, '');
}

function isLoopbackName(name: string): boolean {
  const n = name.toLowerCase();
  return n === 'localhost' || n === '[::1]' || n === '::1' || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(n);
}

function isLoopbackAddress(address: string | undefined): boolean {
  if (address === undefined) return false;
  return address === '::1' || /^(::ffff:)?127\./.test(address);
}
