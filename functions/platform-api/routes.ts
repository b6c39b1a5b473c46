import type { AppContext } from '../../shared/ports/app-context';
import type { DisconnectOptions } from '../../shared/connections/disconnect';
import { bindRoutes } from '../../shared/http/route-table';
import type { Route } from '../../shared/http/types';
import { connectionHandlers } from './connection-handlers';
import { eventHandlers } from './event-routes';
import { keyHandlers } from './key-handlers';
import { platformApiRouteTable } from './route-table';
import { subscriptionHandlers } from './subscription-handlers';
import { triggerCatalogHandler } from './trigger-catalog-handler';
import type { ExamplesLoader } from '../../shared/ports/trigger-examples';

export interface PlatformApiOptions {
  /** Token revocation at disconnect (the OAuth wiring supplies it). */
  revoke?: DisconnectOptions['revoke'];
  /** The providers' trigger examples `GET /triggers` shows (the wiring lists them). */
  examples: ExamplesLoader;
}

/**
 * Connections, subscriptions, scoped keys, the trigger catalog and the event history (docs/api.md),
 * as declared in functions/platform-api/route-table.ts, each with its handler.
 */
export function routes(ctx: AppContext, options: PlatformApiOptions): Route[] {
  return bindRoutes(platformApiRouteTable, {
    ...triggerCatalogHandler(ctx, options.examples),
    ...connectionHandlers(ctx, options.revoke),
    ...subscriptionHandlers(ctx),
    ...keyHandlers(ctx),
    ...eventHandlers(ctx),
  });
}
