import type { AppContext } from '../../shared/ports/app-context';
import type { Route } from '../../shared/http/types';
import type { ProviderTools } from '../../shared/tools/tool-step';
import { toolRouteTable, toolRoutes } from '../../shared/tools/tool-routes';
import { mcpRouteTable, mcpRoutes } from '../../shared/mcp/mcp-routes';

/** The tool-step function's routes as data, in the order `routes` serves them. */
export const toolStepRouteTable = { ...toolRouteTable, ...mcpRouteTable };

/** `GET /tools`, `POST /tools/:toolId/invoke` and the same steps over MCP (`/mcp`, `/mcp/:connectionId`). */
export function routes(ctx: AppContext, tools: ProviderTools[]): Route[] {
  return [...toolRoutes(ctx, tools), ...mcpRoutes(ctx, tools)];
}
