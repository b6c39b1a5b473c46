import type { AppContext } from '../../shared/ports/app-context';
import { platformCaller } from '../../shared/domain/caller';
import { AppError } from '../../shared/domain/errors';
import { getEventFor, listEventsFor, replayEventFor } from '../../shared/events/event-history-api';
import { eventIdParamSchema, eventRouteSchemas, replayEventBodySchema } from '../../shared/events/event-routes-schemas';
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
 * to its connections. Each route's query, body and answer schemas: `eventRouteSchemas`
 * (shared/events/event-routes-schemas.ts).
 */
export function eventRoutes(ctx: AppContext): Route[] {
  return [
    {
      method: 'GET',
      pattern: '/events',
      auth: 'scoped',
      handle: async (req) => json(200, await listEventsFor(ctx, req.caller ?? platformCaller, req.query)),
    },
    {
      method: 'GET',
      pattern: '/events/:id',
      auth: 'scoped',
      handle: async (req) => json(200, await getEventFor(ctx, req.caller ?? platformCaller, eventId(req))),
    },
    {
      method: 'POST',
      pattern: '/events/:id/replay',
      auth: 'scoped',
      maxBodyBytes: 1024,
      handle: async (req) => {
        emptyBody(req);
        return json(202, await replayEventFor(ctx, req.caller ?? platformCaller, eventId(req)));
      },
    },
  ];
}

/** The schemas of the routes above, by method and path. */
export const eventRouteSpecs = eventRouteSchemas;
