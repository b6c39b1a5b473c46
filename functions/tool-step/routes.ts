import type { AppContext } from '../../shared/ports/app-context';
import type { Route } from '../../shared/http/types';
import { allProviderTools } from './registry';
import { toolRoutes } from '../../shared/tools/tool-routes';
import { mcpRoutes } from '../../shared/mcp/mcp-routes';

/** `GET /tools`, `POST /tools/:toolId/invoke` and the same steps over MCP (`/mcp`, `/mcp/:connectionId`). */
export function routes(ctx: AppContext): Route[] {
  const tools = allProviderTools();
  return [...toolRoutes(ctx, tools), ...mcpRoutes(ctx, tools)];
}
