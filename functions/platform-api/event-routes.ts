import type { AppContext } from '../../shared/ports/app-context';
import { platformCaller } from '../../shared/domain/caller';
import { getEventFor, listEventsFor, replayEventFor } from '../../shared/events/event-history-api';
import { eventIdParamSchema } from '../../shared/events/event-routes-schemas';
import { parseOrThrow } from '../../shared/domain/validation';
import { json } from '../../shared/http/responses';
import type { RouteHandlers } from '../../shared/http/route-table';
import type { RouteRequest } from '../../shared/http/types';
import type { eventRouteTable } from './event-route-table';

const eventId = (req: RouteRequest) => parseOrThrow(eventIdParamSchema, { id: req.params.id ?? '' }).id;

/** The event history's handlers (routes: functions/platform-api/event-route-table.ts). */
export function eventHandlers(ctx: AppContext): RouteHandlers<typeof eventRouteTable> {
  return {
    listEvents: async (req) => json(200, await listEventsFor(ctx, req.caller ?? platformCaller, req.query)),
    getEvent: async (req) => json(200, await getEventFor(ctx, req.caller ?? platformCaller, eventId(req))),
    replayEvent: async (req) => json(202, await replayEventFor(ctx, req.caller ?? platformCaller, eventId(req))),
  };
}
