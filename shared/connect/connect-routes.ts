import type { AppContext } from '../ports/app-context';
import type { RouteHandlers } from '../http/route-table';
import { json } from '../http/responses';
import { chooseOnConnectPage, showConnectPage } from './connect-answers';
import { createConnectSession } from './create-session';
import type { connectRouteTable } from './route-table';

/** The connect page's handlers, for the OAuth function's table (functions/oauth/routes.ts). */
export function connectHandlers(ctx: AppContext): RouteHandlers<typeof connectRouteTable> {
  return {
    createConnectSession: async (req) => json(201, await createConnectSession(ctx, req.input)),
    connectPage: async (req) => showConnectPage(ctx, req.params.token ?? ''),
    connectChoose: async (req) => chooseOnConnectPage(ctx, req.params.token ?? '', req),
  };
}
