import * as z from 'zod';
import { json } from './responses';
import type { Route } from './types';

/** Liveness for operators: no auth, no I/O, so it answers even when a dependency is down. */
export const healthzRoute: Route = {
  method: 'GET',
  pattern: '/healthz',
  auth: 'none',
  spec: {
    summary: 'Liveness: no key, no I/O',
    tags: ['meta'],
    answers: { 200: { description: 'Up', body: z.object({ status: z.literal('ok') }) } },
    errors: [],
  },
  handle: async () => json(200, { status: 'ok' }),
};
