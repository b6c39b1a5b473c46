import type { AppContext } from '../../shared/ports/app-context';
import { platformCaller } from '../../shared/domain/caller';
import { AppError } from '../../shared/domain/errors';
import { getEventFor, listEventsFor, replayEventFor } from '../../shared/events/event-history-api';
import {
  eventDetailAnswerSchema,
  eventIdParamSchema,
  listEventsAnswerSchema,
  listEventsQuerySchema,
  replayEventAnswerSchema,
  replayEventBodySchema,
} from '../../shared/events/event-routes-schemas';
import { parseOrThrow } from '../../shared/domain/validation';
import { json } from '../../shared/http/responses';
import type { RouteRequest, Route } from '../../shared/http/types';

const eventId = (req: RouteRequest) => parseOrThrow(eventIdParamSchema, { id: req.params.id ?? '' }).id;

/** `POST /events/{id}/replay` takes no body, or an empty JSON object. */
function emptyBody(req: RouteRequest): void {
  if (req.body.length === 0) return;
  let value: unknown;
  try {
    value = JSON.parse(req.body.toString('utf8'));
  } catch {
    throw new AppError('invalid_input', 'Request body is not valid JSON', { fields: [{ field: '(body)', message: 'not valid JSON' }] });
  }
  parseOrThrow(replayEventBodySchema, value);
}

/**
 * The event history (docs/api.md, "Event history"): the platform key, or a scoped key limited
 * to its connections. Each route's query, body and answer schemas are in
 * shared/events/event-routes-schemas.ts.
 */
export function eventRoutes(ctx: AppContext): Route[] {
  return [
    {
      method: 'GET',
      pattern: '/events',
      auth: 'scoped',
      spec: {
        summary: 'The event history, newest first, with filters and paging',
        description:
          "Events are kept 30 days after their last change. A scoped key sees its connections' events only. With narrow filters a page may come back short: go on with `cursor` while `nextCursor` is set.",
        tags: ['events'],
        query: listEventsQuerySchema,
        answers: { 200: { description: 'One page of events', body: listEventsAnswerSchema } },
        errors: ['invalid_input'],
      },
      handle: async (req) => json(200, await listEventsFor(ctx, req.caller ?? platformCaller, req.query)),
    },
    {
      method: 'GET',
      pattern: '/events/:id',
      auth: 'scoped',
      spec: {
        summary: 'One event: what was sent, its status, and each attempt with its answer, reason and next try',
        tags: ['events'],
        params: eventIdParamSchema,
        answers: { 200: { description: 'The event and its attempts', body: eventDetailAnswerSchema } },
        errors: ['invalid_input', 'not_found'],
      },
      handle: async (req) => json(200, await getEventFor(ctx, req.caller ?? platformCaller, eventId(req))),
    },
    {
      method: 'POST',
      pattern: '/events/:id/replay',
      auth: 'scoped',
      spec: {
        summary: 'Queue an event again, as a new event that says what it replays (`replayOf`)',
        tags: ['events'],
        params: eventIdParamSchema,
        body: replayEventBodySchema,
        answers: { 202: { description: 'The replay is queued', body: replayEventAnswerSchema } },
        errors: ['invalid_input', 'not_found'],
      },
      maxBodyBytes: 1024,
      handle: async (req) => {
        emptyBody(req);
        return json(202, await replayEventFor(ctx, req.caller ?? platformCaller, eventId(req)));
      },
    },
  ];
}
