import type { CircuitBoard } from '../../shared/dispatch/circuit-board';
import type { LocalQueues } from '../../shared/adapters/local/local-queues';
import type { AppContext } from '../../shared/ports/app-context';
import { bindRoutes } from '../../shared/http/route-table';
import type { Route } from '../../shared/http/types';
import { catalog } from '../../shared/tools/catalog';
import { allProviderTools } from '../../shared/wiring/provider-tools';
import { consoleScript, consoleStyle } from './assets';
import { actionHandlers, sessionHandlers, viewHandlers, type ConsoleDeps } from './console-handlers';
import { ConsoleSessions } from './session';
import { LoginThrottle } from './login-throttle';
import type { RecentEvents } from './recent-events';
import { consoleRouteTable } from './route-table';
import { actHandlers } from './act-handlers';
import { triggerChoices } from './subscribe-form';
import { triggerCatalogOf } from '../../shared/ports/provider-contract';

/**
 * The console (GET /, docs/console.md): the local runtime's state for a person, behind the
 * platform key (its login form, or a Bearer header). Its actions are the runtime's own use
 * cases: its events are the platform API's `GET /events` and `GET /events/{id}`, replay is
 * `POST /events/{id}/replay` (shared/events/), redrive is the dead-letter queue's
 * redrive (as `npm run dlq`), a tool form calls invokeTool (as POST /tools/{id}/invoke); connect,
 * subscribe and keys call what POST /connect/sessions, /subscriptions and /keys call, and an
 * example goes through the runtime's own intake (as `npm run trigger`).
 * Security: docs/security.md "The console".
 */
export function consoleRoutes(ctx: AppContext, queues: LocalQueues, recent: RecentEvents, circuit?: CircuitBoard): Route[] {
  const tools = allProviderTools();
  const deps: ConsoleDeps = {
    ctx,
    queues,
    recent,
    ...(circuit ? { circuit } : {}),
    sessions: new ConsoleSessions(ctx.clock),
    throttle: new LoginThrottle(ctx.clock, ctx.logger),
    tools,
    toolCatalog: catalog(tools),
    triggers: triggerChoices(triggerCatalogOf(ctx.providers)),
  };
  const asset = (body: string, type: string) => async () => ({ status: 200, headers: { 'content-type': `${type}; charset=utf-8` }, body });
  return bindRoutes(consoleRouteTable, {
    script: asset(consoleScript, 'text/javascript'),
    style: asset(consoleStyle, 'text/css'),
    ...viewHandlers(deps),
    ...sessionHandlers(deps),
    ...actionHandlers(deps),
    ...actHandlers(deps),
  });
}
