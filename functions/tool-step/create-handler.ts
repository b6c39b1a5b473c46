import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import type { AppContext } from '../../shared/ports/app-context';
import { AppError } from '../../shared/domain/errors';
import { lambdaHttpFunction } from '../../shared/http/lambda-http-function';
import { invokeTool, type ToolResult } from '../../shared/tools/invoke';
import type { ProviderTools } from '../../shared/tools/tool-step';
import { toolRoutes } from '../../shared/tools/tool-routes';
import { mcpRoutes } from '../../shared/mcp/mcp-routes';
import { resolveScopedKey } from '../../shared/keys/scoped-keys';

/** Direct Lambda invoke (docs/api.md): `{toolId, connectionId, input}` -> the ToolResult. */
export interface DirectInvokeEvent {
  toolId?: unknown;
  connectionId?: unknown;
  input?: unknown;
}

function isFunctionUrlEvent(event: unknown): event is APIGatewayProxyEventV2 {
  return typeof event === 'object' && event !== null && typeof (event as APIGatewayProxyEventV2).requestContext?.http === 'object';
}

/**
 * The tool-step Lambda: function URL events (recognised by `requestContext.http`) go
 * through the same routes as the local runtime, tools and MCP (platform or scoped key checked by the router);
 * anything else is a direct invoke and answers the ToolResult object itself.
 */
export function createToolStepHandler(getContext: () => Promise<AppContext>, getTools: () => ProviderTools[]) {
  const functionUrl = lambdaHttpFunction({
    context: getContext,
    routes: (ctx) => [...toolRoutes(ctx, getTools()), ...mcpRoutes(ctx, getTools())],
    scopedKey: resolveScopedKey,
    failure: 'tool-step request failed',
  });
  return async (event: unknown): Promise<ToolResult | APIGatewayProxyStructuredResultV2> => {
    const ctx = await getContext();
    if (isFunctionUrlEvent(event)) return functionUrl(event);
    const tools = getTools();
    if (typeof event !== 'object' || event === null || Array.isArray(event)) {
      return { ok: false, error: new AppError('invalid_input', 'Invoke with {toolId, connectionId, input}').toJSON() };
    }
    const { toolId, connectionId, input } = event as DirectInvokeEvent;
    return invokeTool(ctx, { toolId: toolId as string, connectionId: connectionId as string, input }, tools);
  };
}
