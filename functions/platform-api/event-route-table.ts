import {
  eventDetailAnswerSchema,
  eventIdParamSchema,
  listEventsAnswerSchema,
  listEventsQuerySchema,
  replayEventAnswerSchema,
  replayEventBodySchema,
} from '../../shared/events/event-routes-schemas';
import type { RouteTable } from '../../shared/http/route-table';

/**
 * The event history (docs/api.md, "Event history"): the platform key, or a scoped key limited
 * to its connections. Each route's query, body and answer schemas are in
 * shared/events/event-routes-schemas.ts; the handlers in functions/platform-api/event-routes.ts.
 */
export const eventRouteTable = {
  listEvents: {
    method: 'GET',
    pattern: '/events',
    auth: 'scoped',
    spec: {
      summary: 'The event history, newest first, with filters and paging',
      description:
        "Events are kept 30 days after their last change. A scoped key sees its connections' events only (and its agents' when it names agents); a disconnected connection's events are read with the platform key only. With narrow filters a page may come back short: go on with `cursor` while `nextCursor` is set.",
      tags: ['events'],
      query: listEventsQuerySchema,
      answers: { 200: { description: 'One page of events', body: listEventsAnswerSchema } },
      errors: ['invalid_input'],
    },
  },
  getEvent: {
    method: 'GET',
    pattern: '/events/:id',
    auth: 'scoped',
    spec: {
      summary: 'One event: what was sent, its status, and each attempt with its answer, reason and next try',
      description:
        'An event a scoped key may not see (another connection, a disconnected one, another agent) is answered 404 exactly as an unknown id.',
      tags: ['events'],
      params: eventIdParamSchema,
      answers: { 200: { description: 'The event and its attempts', body: eventDetailAnswerSchema } },
      errors: ['invalid_input', 'not_found'],
    },
  },
  replayEvent: {
    method: 'POST',
    pattern: '/events/:id/replay',
    auth: 'scoped',
    spec: {
      summary: 'Queue an event again, as a new event that says what it replays (`replayOf`)',
      description:
        'A replay of a replay replays the original. Refused with 409 `conflict` when the subscription was deleted, the connection disconnected or no longer takes events, or the repository left the allow-list (the dispatch checks the same again before it posts). Bounded: 5 replays of one event per 24 h, 100 per scoped key per hour (1,000 for the platform key); past a bound, 429 `replay_limited` with `Retry-After` and `details.retryAfter` (seconds) and `details.nextReplayAt`.',
      tags: ['events'],
      params: eventIdParamSchema,
      // No body, or an empty JSON object: the router checks it.
      body: replayEventBodySchema,
      answers: { 202: { description: 'The replay is queued', body: replayEventAnswerSchema } },
      errors: ['invalid_input', 'not_found', 'conflict', 'replay_limited'],
    },
    maxBodyBytes: 1024,
  },
} satisfies RouteTable;
