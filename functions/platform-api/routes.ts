import type { AppContext } from '../../shared/app/context';
import { notImplemented } from '../../shared/http/responses';
import type { Route } from '../../shared/http/types';

/** Placeholder until the feature lands: each route of CONTRACT.md answers 501 with a JSON error. */
export function routes(_ctx: AppContext): Route[] {
  return [
    pending('POST', '/connections', 'platform'),
    pending('GET', '/connections', 'platform'),
    pending('GET', '/connections/:id', 'platform'),
    pending('PATCH', '/connections/:id', 'platform'),
    pending('DELETE', '/connections/:id', 'platform'),
    pending('POST', '/subscriptions', 'platform'),
    pending('GET', '/subscriptions', 'platform'),
    pending('GET', '/subscriptions/:id', 'platform'),
    pending('DELETE', '/subscriptions/:id', 'platform'),
  ];
}

function pending(method: Route['method'], pattern: string, auth: Route['auth']): Route {
  return { method, pattern, auth, handle: async () => notImplemented('Connections and subscriptions API') };
}
