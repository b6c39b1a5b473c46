import type { AppContext } from '../shared/ports/app-context';
import type { LocalQueues } from '../shared/adapters/local/local-queues';
import { healthzRoute } from '../shared/http/healthz';
import { revokeForDisconnect } from '../shared/oauth/revoke';
import type { Route, RouteDeclaration } from '../shared/http/types';
import { routes as platformApiRoutes } from '../functions/platform-api/routes';
import { platformApiRouteTable } from '../functions/platform-api/route-table';
import { routes as intakeRoutes } from '../functions/webhook-intake/routes';
import { providerWebhooks } from '../shared/wiring/provider-intake';
import { intakeRouteTable } from '../functions/webhook-intake/route-table';
import { routes as oauthRoutes } from '../functions/oauth/routes';
import { oauthRouteTable } from '../functions/oauth/route-table';
import { routes as toolRoutes, toolStepRouteTable } from '../functions/tool-step/routes';
import { allProviderTools } from '../shared/wiring/provider-tools';
import { loadProviderExamples } from '../shared/wiring/provider-examples';
import { adminRouteTable, adminRoutes } from './admin-routes';
import { consoleRoutes } from './console/routes';
import { consoleRouteTable } from './console/route-table';
import { RecentEvents } from './console/recent-events';
import type { CircuitBoard } from '../shared/dispatch/circuit-board';

/**
 * Every route `localRoutes` serves, as data and in the same order: what the OpenAPI document
 * describes (local/openapi-document.ts), read without building a context.
 */
export const localRouteDeclarations: readonly RouteDeclaration[] = [
  healthzRoute,
  ...Object.values(platformApiRouteTable),
  ...Object.values(intakeRouteTable),
  ...Object.values(oauthRouteTable),
  ...Object.values(toolStepRouteTable),
  ...Object.values(adminRouteTable),
  ...Object.values(consoleRouteTable),
];

/**
 * Every function's routes on one router, the HTTP surface of docs/api.md, wired as on AWS
 * (functions/platform-api/handler.ts): disconnecting revokes the OAuth grant first.
 */
export function localRoutes(
  ctx: AppContext,
  queues: LocalQueues,
  recent: RecentEvents = new RecentEvents(ctx.clock, ctx.blobs),
  /** The consumer's circuits over the agent runtime, for the console. */
  circuit?: CircuitBoard,
): Route[] {
  return [
    healthzRoute,
    ...platformApiRoutes(ctx, { revoke: revokeForDisconnect(ctx), examples: loadProviderExamples }),
    // Deliveries the intake refuses for their shape show among the console's recent events.
    ...intakeRoutes(ctx, providerWebhooks, { observer: { refused: (d) => recent.refused(d) } }),
    // A browser finishing a flow without returnTo is offered the way back to the console (GET /).
    ...oauthRoutes(ctx, { consoleUrl: `${ctx.config.publicUrl}/` }),
    ...toolRoutes(ctx, allProviderTools()),
    ...adminRoutes(ctx, queues),
    ...consoleRoutes(ctx, queues, recent, circuit),
  ];
}
