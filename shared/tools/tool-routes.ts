import type { AppContext } from '../ports/app-context';
import { AppError } from '../domain/errors';
import { lambdaMaxBodyBytes } from '../http/body-limits';
import { json, statusByCode } from '../http/responses';
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

function parseBody(raw: Buffer): { connectionId?: unknown; input?: unknown } {
  if (raw.length === 0) return {};
  let value: unknown;
  try {
    value = JSON.parse(raw.toString('utf8'));
  } catch {
    throw new AppError('invalid_input', 'Request body is not valid JSON', { fields: [{ field: '(body)', message: 'not valid JSON' }] });
  }
  if (!value || typeof value !== 'object' || Array.isArray(value)) {
    throw new AppError('invalid_input', 'Request body must be a JSON object {connectionId, input}', {
      fields: [{ field: '(body)', message: 'expected an object' }],
    });
  }
  return value as { connectionId?: unknown; input?: unknown };
}

/** `GET /tools` and `POST /tools/:toolId/invoke` over the given providers' steps. */
export function toolRoutes(ctx: AppContext, tools: ProviderTools[]): Route[] {
  return [
    {
      method: 'GET',
      pattern: '/tools',
      auth: 'scoped',
      spec: {
        summary: 'The tool steps, with their input and output JSON Schemas and the permissions each needs',
        tags: ['tools'],
        answers: { 200: { description: 'The catalog', body: z.object({ tools: z.array(catalogEntrySchema) }) } },
        errors: [],
      },
      handle: async () => json(200, { tools: catalog(tools) }),
    },
    {
      method: 'POST',
      pattern: '/tools/:toolId/invoke',
      auth: 'scoped',
      // Inputs carry file contents and gists: up to what Lambda accepts.
      maxBodyBytes: lambdaMaxBodyBytes,
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
      handle: async (req) => {
        let body: { connectionId?: unknown; input?: unknown };
        try {
          body = parseBody(req.body);
        } catch (e) {
          return toolResultResponse({ ok: false, error: (e as AppError).toJSON() });
        }
        const result = await invokeTool(
          ctx,
          { toolId: req.params.toolId ?? '', connectionId: body.connectionId as string, input: body.input, caller: req.caller },
          tools,
        );
        return toolResultResponse(result);
      },
    },
  ];
}
