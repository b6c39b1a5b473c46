import type { AppContext } from '../ports/app-context';
import type { AppError } from '../domain/errors';
import { lambdaMaxBodyBytes } from '../http/body-limits';
import { json, statusByCode } from '../http/responses';
import { bindRoutes, type RouteTable } from '../http/route-table';
import type { HttpResponse, Route } from '../http/types';
import * as z from 'zod';
import { catalog, catalogEntrySchema } from './catalog';
import { connectionIdSchema, invokeTool, toolFailureSchema, toolSuccessSchema, type ToolResult } from './invoke';
import type { ProviderTools } from './tool-step';

/**
 * The answer of `POST /tools/{toolId}/invoke`. The body is always the ToolResult (the
 * contract's shape); the HTTP status mirrors its error code through `statusByCode`
 * (200 for ok, 400 invalid_input, 404 not_found / connection_not_found, 429 rate_limited,
 * 502 upstream_error ...), so plain HTTP clients and proxies see failures as failures too.
 */
export function toolResultResponse(result: ToolResult): HttpResponse {
  return json(result.ok ? 200 : statusByCode[result.error.code], result);
}

/**
 * What the router checks the invoke body with: a JSON object. Its fields are `invokeTool`'s to
 * check (the tool id first, then every bad field of `connectionId` and `input` at once), as over
 * MCP and from the console.
 */
const invokeEnvelope = z.looseObject(
  { connectionId: z.unknown().optional(), input: z.unknown().optional() },
  { error: 'expected an object' },
);

/** `GET /tools` and `POST /tools/:toolId/invoke`, as data (handlers: `toolRoutes`). */
export const toolRouteTable = {
  listTools: {
    method: 'GET',
    pattern: '/tools',
    auth: 'scoped',
    spec: {
      summary: 'The tool steps, with their input and output JSON Schemas and the permissions each needs',
      tags: ['tools'],
      answers: { 200: { description: 'The catalog', body: z.object({ tools: z.array(catalogEntrySchema) }) } },
      errors: [],
    },
  },
  invokeTool: {
    method: 'POST',
    pattern: '/tools/:toolId/invoke',
    auth: 'scoped',
    // Inputs carry file contents and gists: up to what Lambda accepts.
    maxBodyBytes: lambdaMaxBodyBytes,
    accepts: invokeEnvelope,
    // Every answer of this route is the ToolResult, a refused body too.
    refuseBody: (error: AppError) => toolResultResponse({ ok: false, error: error.toJSON() }),
    spec: {
      summary: 'Run a tool step on a connection',
      description:
        'The answer is always the ToolResult; the HTTP status mirrors its error code (200 when ok). Destructive steps take `input.dryRun: true` and then describe the request instead.',
      tags: ['tools'],
      params: z.object({ toolId: z.string().describe('e.g. `github.create_issue`: GET /tools lists them') }),
      body: z.object({
        connectionId: connectionIdSchema,
        input: z.record(z.string(), z.unknown()).optional().describe("The step's input: `inputSchema` in GET /tools"),
      }),
      answers: { 200: { description: 'The step succeeded', body: toolSuccessSchema } },
      errors: [
        'invalid_input',
        'not_found',
        'connection_not_found',
        'conflict',
        'reconnect_required',
        'token_origin_mismatch',
        'rate_limited',
        'not_configured',
        'upstream_error',
        'timeout',
      ],
      errorBody: toolFailureSchema,
    },
  },
} satisfies RouteTable;

/** `GET /tools` and `POST /tools/:toolId/invoke` over the given providers' steps. */
export function toolRoutes(ctx: AppContext, tools: ProviderTools[]): Route[] {
  return bindRoutes(toolRouteTable, {
    listTools: async () => json(200, { tools: catalog(tools) }),
    invokeTool: async (req) => {
      const { connectionId, input } = req.input;
      const result = await invokeTool(
        ctx,
        { toolId: req.params.toolId ?? '', connectionId: connectionId as string, input, caller: req.caller },
        tools,
      );
      return toolResultResponse(result);
    },
  });
}
