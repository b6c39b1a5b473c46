import { json } from './responses';
import type { Route } from './types';

/** Liveness for operators: no auth, no I/O, so it answers even when a dependency is down. */
export const healthzRoute: Route = {
  method: 'GET',
  pattern: '/healthz',
  auth: 'none',
  handle: async () => json(200, { status: 'ok' }),
};
