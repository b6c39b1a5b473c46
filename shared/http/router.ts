import { timingSafeEqual } from 'node:crypto';
import { platformKeys } from '../config/platform-keys';
import { AppError } from '../domain/errors';
import { errorResponse, toErrorResponse } from './responses';
import type { HttpRequest, HttpResponse, Route } from './types';

interface CompiledRoute {
  route: Route;
  regex: RegExp;
  names: string[];
}

function compile(route: Route): CompiledRoute {
  const names: string[] = [];
  const source = route.pattern
    .split('/')
    .map((seg) => {
      if (seg.startsWith(':')) {
        names.push(seg.slice(1));
        return '([^/]+)';
      }
      return seg.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
    })
    .join('/');
  return { route, regex: new RegExp(`^${source}/?$`), names };
}

/** True when the bearer key is one of `keys` (two during a rotation); each compared in constant time, all of them always. */
function bearerMatches(header: string | undefined, keys: string[]): boolean {
  if (!header) return false;
  const m = /^Bearer\s+(.+)$/i.exec(header.trim());
  if (!m?.[1]) return false;
  const given = Buffer.from(m[1]);
  let matched = false;
  for (const key of keys) {
    const want = Buffer.from(key);
    if (given.length === want.length && timingSafeEqual(given, want)) matched = true;
  }
  return matched;
}

export interface RouterOptions {
  /** Returns the platform API key (`<new>,<old>` during a rotation); resolved lazily so AWS can read it from Secrets Manager. */
  platformApiKey: () => Promise<string>;
  /** Called for every unexpected (non-AppError) failure. */
  onError?: (e: unknown, req: HttpRequest) => void;
}

/** Matches method + path, checks the platform key where needed, maps errors in one place. */
export function createRouter(routes: Route[], options: RouterOptions) {
  const compiled = routes.map(compile);
  return async function handle(req: HttpRequest): Promise<HttpResponse> {
    let pathMatched = false;
    for (const c of compiled) {
      const m = c.regex.exec(req.path);
      if (!m) continue;
      pathMatched = true;
      if (c.route.method !== req.method.toUpperCase()) continue;
      try {
        if (c.route.auth === 'platform' && !bearerMatches(req.headers.authorization, platformKeys(await options.platformApiKey()))) {
          return errorResponse(new AppError('unauthorized', 'Missing or wrong bearer key (Authorization: Bearer <PLATFORM_API_KEY>)'));
        }
        const params: Record<string, string> = {};
        c.names.forEach((name, i) => {
          params[name] = decodeURIComponent(m[i + 1] ?? '');
        });
        return await c.route.handle({ ...req, params });
      } catch (e) {
        if (!(e instanceof AppError)) options.onError?.(e, req);
        return toErrorResponse(e);
      }
    }
    return pathMatched
      ? errorResponse(new AppError('not_found', `Method ${req.method} not allowed on ${req.path}`, { status: 405 }))
      : errorResponse(new AppError('not_found', `No route for ${req.method} ${req.path}`));
  };
}
