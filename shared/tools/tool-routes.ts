import type { AppContext } from '../ports/app-context';
import { AppError } from '../domain/errors';
import { lambdaMaxBodyBytes } from '../http/body-limits';
import { json, statusByCode } from '../http/responses';
import type { HttpResponse, Route } from '../http/types';
import { catalog } from './catalog';
import { invokeTool, type ToolResult } from './invoke';
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
      handle: async () => json(200, { tools: catalog(tools) }),
    },
    {
      method: 'POST',
      pattern: '/tools/:toolId/invoke',
      auth: 'scoped',
      // Inputs carry file contents and gists: up to what Lambda accepts.
      maxBodyBytes: lambdaMaxBodyBytes,
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
