import { AppError } from '../domain/errors';
import type { Fetch } from '../ports';
import { isWithinBase } from './safe-endpoint';

const redirectStatuses = new Set([301, 302, 303, 307, 308]);

/**
 * A fetch that never sends a request (and so never the token it carries) outside `base`'s
 * origin and path (RELIABILITY.md 28). Redirects are handled by hand: followed only when
 * the target is under the same base (at most `maxRedirects`), otherwise the 3xx answer is
 * returned to the caller as it is; a caller that asks for `redirect: 'manual'` gets every 3xx
 * as it is. A first URL outside the base is refused outright.
 */
export function sameOriginFetch(fetchImpl: Fetch, base: string, maxRedirects = 3): Fetch {
  const guarded = async (input: Parameters<Fetch>[0], init?: Parameters<Fetch>[1]): Promise<Response> => {
    let url = new URL(typeof input === 'string' || input instanceof URL ? input.toString() : input.url);
    if (!isWithinBase(url, base)) {
      throw new AppError('forbidden', 'Refused a request outside the configured API base URL');
    }
    let method = (init?.method ?? 'GET').toUpperCase();
    let body = init?.body;
    for (let hop = 0; ; hop++) {
      const res = await fetchImpl(url, { ...init, method, body, redirect: 'manual' });
      const location = res.headers.get('location');
      // `redirect: 'manual'`: the caller reads the redirect itself (a job log's signed URL).
      if (init?.redirect === 'manual') return res;
      if (!redirectStatuses.has(res.status) || !location || hop >= maxRedirects) return res;
      let next: URL;
      try {
        next = new URL(location, url);
      } catch {
        return res;
      }
      if (!isWithinBase(next, base)) return res;
      // Fetch's rules: 303 (and 301/302 after a POST) become a GET without a body.
      if (res.status === 303 || ((res.status === 301 || res.status === 302) && method === 'POST')) {
        if (method !== 'HEAD') method = 'GET';
        body = undefined;
      }
      await res.body?.cancel().catch(() => undefined);
      url = next;
    }
  };
  return guarded as Fetch;
}
