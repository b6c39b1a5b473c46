import type { AppContext } from '../../shared/app/context';
import { notImplemented } from '../../shared/http/responses';
import type { Route } from '../../shared/http/types';

/** Placeholder until the feature lands: each route of CONTRACT.md answers 501 with a JSON error. */
export function routes(_ctx: AppContext): Route[] {
  return [
    pending('POST', '/oauth/:provider/authorize', 'platform'),
    pending('GET', '/oauth/:provider/callback', 'none'),
  ];
}

function pending(method: Route['method'], pattern: string, auth: Route['auth']): Route {
  return { method, pattern, auth, handle: async () => notImplemented('OAuth') };
}
