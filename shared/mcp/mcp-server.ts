import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import {
  CallToolRequestSchema,
  type CallToolResult,
  ErrorCode,
  ListResourcesRequestSchema,
  ListToolsRequestSchema,
  McpError,
  ReadResourceRequestSchema,
} from '@modelcontextprotocol/sdk/types.js';
import * as z from 'zod';
import { callerActsFor, type Caller } from '../domain/caller';
import type { TriggerCatalog } from '../domain/trigger-catalog';
import { triggerCatalogOf } from '../ports/provider-contract';
import { triggerTools } from '../domain/trigger-tools';
import { triggerIds } from '../domain/triggers';
import type { AppContext } from '../ports/app-context';
import type { Sleep } from '../ports';
import { SubscriptionRepo } from '../store/subscription-repo';
import { catalog } from '../tools/catalog';
import { invokeTool, type ToolResult } from '../tools/invoke';
import type { ProviderTools } from '../tools/tool-step';
import { chooseConnection, type McpCatalogEntry, mcpOutputSchema, type McpScope, mcpTools } from './mcp-tools';
import { mcpToolName } from './tool-names';

/** What one MCP request is served with: the context, the steps, who calls, and the connections it may see. */
export interface McpRequestScope extends McpScope {
  ctx: AppContext;
  tools: ProviderTools[];
  caller: Caller;
}

/**
 * The trigger catalog as a model reads it: what each trigger is and when it fires, without the
 * example events `GET /triggers` carries (about 140 KB, which would also put the examples in
 * the tool-step function's package).
 */
function triggerSummaries(catalog: TriggerCatalog) {
  return triggerIds.map((id) => {
    const t = catalog[id];
    return {
      id,
      title: t.title,
      description: t.description,
      includes: t.includes,
      filters: [...t.filters],
      delivery: t.events.length > 0 ? 'webhook' : 'polling',
      answeredBy: [...triggerTools[id]],
    };
  });
}

/** What the server announces at initialize. */
export const mcpServerInfo = { name: 'agent-integrations', version: '1.0.0' } as const;

const triggersUri = 'agent-integrations://triggers';
const subscriptionsUri = (connectionId: string) => `agent-integrations://connections/${connectionId}/subscriptions`;
const subscriptionsUriPattern = /^agent-integrations:\/\/connections\/([A-Za-z0-9_-]{1,128})\/subscriptions$/;

function errorResult(error: { code: string; message: string; details?: Record<string, unknown> }): CallToolResult {
  const text = `${error.code}: ${error.message}${error.details ? `\n${JSON.stringify(error.details)}` : ''}`;
  return { isError: true, content: [{ type: 'text', text }] };
}

/** A tool result as the protocol carries it: the data as text, and as structured content matching the step's declared output. */
function toCallToolResult(result: ToolResult, entry: McpCatalogEntry): CallToolResult {
  if (!result.ok) return errorResult(result.error);
  const text = JSON.stringify(result.data, null, 2);
  const { wrapped } = mcpOutputSchema(entry.outputSchema);
  const structured = wrapped ? { result: result.data } : (result.data as Record<string, unknown>);
  return { content: [{ type: 'text', text }], structuredContent: structured };
}

/**
 * A sleep that tells the client what the call is waiting for (a rate limit), as progress
 * notifications, when the client asked for them with a progress token.
 */
function reportingSleep(sleep: Sleep, notify: (message: string, progress: number) => Promise<void>): Sleep {
  let progress = 0;
  return async (ms) => {
    progress += 1;
    await notify(`waiting ${Math.ceil(ms / 1000)} s before the service may be called again (its rate limit or a retry)`, progress).catch(
      () => undefined,
    );
    return sleep(ms);
  };
}

/** The protocol's code for a resource that does not exist (the resources section of the specification). */
export const resourceNotFound = -32002;

type RequestSchema = z.ZodObject<{ method: z.ZodLiteral<string> }>;
type Handler<S extends RequestSchema> = (
  request: z.output<S>,
  extra: Parameters<Parameters<Server['setRequestHandler']>[1]>[1],
) => Promise<Record<string, unknown>>;

/**
 * Registers `handler` for the method of `schema`, with params that do not fit answered as the
 * protocol says: -32602 (invalid params). The SDK parses before the handler runs and lets a
 * failed parse through as -32603 (internal error), so it is given a schema that only routes by
 * method, and the real one is checked here.
 */
function onRequest<S extends RequestSchema>(server: Server, schema: S, handler: Handler<S>): void {
  const method = schema.shape.method.value;
  const routeOnly = z.looseObject({ method: z.literal(method) });
  server.setRequestHandler(
    routeOnly as unknown as Parameters<Server['setRequestHandler']>[0],
    (async (request: unknown, extra) => {
      const parsed = schema.safeParse(request);
      if (!parsed.success) {
        const where = parsed.error.issues.map((i) => `${i.path.join('.') || '(request)'}: ${i.message}`).join('; ');
        throw new McpError(ErrorCode.InvalidParams, `Invalid ${method} params: ${where}`);
      }
      return handler(parsed.data, extra);
    }) as Parameters<Server['setRequestHandler']>[1],
  );
}

/** No list is paged: every cursor is one this server never gave. */
function refuseCursor(params: { cursor?: string } | undefined, method: string): void {
  if (params?.cursor !== undefined) {
    throw new McpError(
      ErrorCode.InvalidParams,
      `Invalid cursor for ${method}: this server answers the whole list at once and gives no cursors`,
    );
  }
}

/** The resources of `resources/list`: the trigger catalog, and the subscriptions of each connection in scope. */
function resourceList(scope: McpRequestScope) {
  return [
    {
      uri: triggersUri,
      name: 'triggers',
      title: 'Trigger catalog',
      description:
        'Every trigger that can start an agent: id, title, when it fires, what it includes, its filters and the tools that answer it (`answeredBy`; GET /triggers adds an example event).',
      mimeType: 'application/json',
    },
    ...(scope.pinned ? [scope.pinned] : scope.connections).map((c) => ({
      uri: subscriptionsUri(c.id),
      name: `subscriptions-${c.id}`,
      title: `Subscriptions of ${c.label ?? c.accountLogin} (${c.provider})`,
      description: `The triggers connection ${c.id} is subscribed to, and the agents they start.`,
      mimeType: 'application/json',
    })),
  ];
}

/**
 * The MCP server of one request (stateless: a Lambda container may never see the next
 * request of a session, so nothing is kept between requests). `tools/call` goes through the
 * same `invokeTool` as `POST /tools/{id}/invoke`: the same validation, allow-lists, rate
 * limits, dry runs and error codes; a failure of the call is a tool result with `isError`,
 * so a model can read it and correct itself. What the protocol itself refuses is a JSON-RPC
 * error: params that do not fit the method and an unknown tool (-32602), an unknown resource
 * (-32002), a cursor this server never gave (-32602).
 */
export function buildMcpServer(scope: McpRequestScope): Server {
  const server = new Server(
    { ...mcpServerInfo },
    {
      capabilities: { tools: {}, resources: {} },
      instructions:
        'Tools act on the connected GitHub and Content Snare accounts. Resources list the triggers that can start an agent and the subscriptions of each connection.',
    },
  );
  const entries = catalog(scope.tools) as McpCatalogEntry[];
  const byName = new Map(entries.map((e) => [mcpToolName(e.id), e]));

  onRequest(server, ListToolsRequestSchema, async (request) => {
    refuseCursor(request.params, 'tools/list');
    return { tools: mcpTools(entries, scope) };
  });

  onRequest(server, CallToolRequestSchema, async (request, extra) => {
    const entry = byName.get(request.params.name);
    const served = entry && mcpTools([entry], scope).length > 0;
    if (!entry || !served) {
      throw new McpError(ErrorCode.InvalidParams, `Unknown tool: ${request.params.name} (tools/list names the tools of this endpoint)`);
    }
    const choice = chooseConnection(entry.provider, request.params.arguments ?? {}, scope);
    if (!choice.ok) return errorResult({ code: 'invalid_input', message: choice.message });
    const progressToken = request.params._meta?.progressToken;
    const ctx =
      progressToken === undefined
        ? scope.ctx
        : {
            ...scope.ctx,
            sleep: reportingSleep(scope.ctx.sleep, (message, progress) =>
              extra.sendNotification({ method: 'notifications/progress', params: { progressToken, progress, message } }),
            ),
          };
    const result = await invokeTool(
      ctx,
      { toolId: entry.id, connectionId: choice.connectionId, input: choice.input, caller: scope.caller },
      scope.tools,
    );
    return toCallToolResult(result, entry);
  });

  onRequest(server, ListResourcesRequestSchema, async (request) => {
    refuseCursor(request.params, 'resources/list');
    return { resources: resourceList(scope) };
  });

  onRequest(server, ReadResourceRequestSchema, async (request) => {
    const { uri } = request.params;
    if (uri === triggersUri) {
      return {
        contents: [
          {
            uri,
            mimeType: 'application/json',
            text: JSON.stringify({ triggers: triggerSummaries(triggerCatalogOf(scope.ctx.providers)) }),
          },
        ],
      };
    }
    const connectionId = subscriptionsUriPattern.exec(uri)?.[1];
    const visible = (scope.pinned ? [scope.pinned] : scope.connections).some((c) => c.id === connectionId);
    if (!connectionId || !visible) throw new McpError(resourceNotFound, `Resource not found: ${uri}`, { uri });
    // A key bound to agents reads only their subscriptions, as over GET /subscriptions.
    const subscriptions = (await new SubscriptionRepo(scope.ctx.store).list(connectionId)).filter((s) =>
      callerActsFor(scope.caller, s.agentId),
    );
    return { contents: [{ uri, mimeType: 'application/json', text: JSON.stringify({ subscriptions }) }] };
  });
  return server;
}
