import { routes as platformRoutes, type PlatformApiOptions } from '../../functions/platform-api/routes';
import type { AppContext } from '../../shared/ports/app-context';
import { createRouter } from '../../shared/http/router';
import { loadProviderExamples } from '../../shared/wiring/provider-examples';
import { resolveScopedKey } from '../../shared/keys/scoped-keys';
import { testPlatformKey } from './test-context';

export interface ApiAnswer {
  status: number;
  body: Record<string, any>;
  /** The answer's headers, names lower-cased. */
  headers: Record<string, string>;
}

/** `call(method, path?query, body?, auth?)` against the platform API's routes, in-process. */
export type PlatformApiCall = (method: string, path: string, body?: unknown, auth?: string) => Promise<ApiAnswer>;

/**
 * The platform API's routes on `ctx`, called in-process with the test platform key (or
 * `auth`), a JSON body and the query split off the path. `onAnswer` sees every raw answer
 * body (for leak scans).
 */
export function platformApiCaller(
  ctx: AppContext,
  options: { routes?: Partial<PlatformApiOptions>; onAnswer?: (body: string) => void } = {},
): PlatformApiCall {
  const router = createRouter(platformRoutes(ctx, { examples: loadProviderExamples, ...options.routes }), {
    platformApiKey: async () => testPlatformKey,
    scopedKey: (token) => resolveScopedKey(ctx, token),
  });
  return async (method, path, body, auth = `Bearer ${testPlatformKey}`) => {
    const [p = path, q] = path.split('?');
    const res = await router({
      method,
      path: p,
      headers: { authorization: auth, 'content-type': 'application/json' },
      query: new URLSearchParams(q ?? ''),
      body: Buffer.from(body === undefined ? '' : JSON.stringify(body)),
    });
    options.onAnswer?.(String(res.body));
    const text = String(res.body ?? '');
    const headers = Object.fromEntries(Object.entries(res.headers ?? {}).map(([k, v]) => [k.toLowerCase(), String(v)]));
    return { status: res.status, body: (text === '' ? {} : JSON.parse(text)) as Record<string, any>, headers };
  };
}

/**
 * The same calls over HTTP, to a running runtime's platform API at `baseUrl` (or a function
 * giving it, for a runtime started later) with the platform key `key`.
 */
export function httpApiCaller(baseUrl: string | (() => string), key: string): PlatformApiCall {
  return async (method, path, body, auth = `Bearer ${key}`) => {
    const base = typeof baseUrl === 'string' ? baseUrl : baseUrl();
    const res = await fetch(`${base}${path}`, {
      method,
      headers: { authorization: auth, 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    const headers = Object.fromEntries(Object.entries(res.headers ?? {}).map(([k, v]) => [k.toLowerCase(), String(v)]));
    return { status: res.status, body: (text === '' ? {} : JSON.parse(text)) as Record<string, any>, headers };
  };
}
