import { assertCallerMayUse, platformCaller, type Caller } from '../domain/caller';
import type { Connection } from '../domain/model';
import { AppError } from '../domain/errors';
import { loadOnce } from '../domain/load-once';
import { apiComponents } from '../domain/model-schemas';
import { lambdaMaxBodyBytes } from '../http/body-limits';
import * as z from 'zod';
import { bindRoutes, type RouteTable } from '../http/route-table';
import type { HttpResponse, Route, RouteRequest, RouteSpec } from '../http/types';
import type { AppContext } from '../ports/app-context';
import { ConnectionRepo } from '../store/connection-repo';
import type { ProviderTools } from '../tools/tool-step';
import { mcpOriginRefusal } from './mcp-origin';
import type { McpScope } from './mcp-tools';
import { chooseToolsets, toolsetHeader } from './toolset-filter';

// The protocol SDK is loaded on the first MCP request: the tool-step function's cold start
// (every plain tool call) does not compile it.
const loadSdk = loadOnce(async () => {
  const [{ buildMcpServer }, { WebStandardStreamableHTTPServerTransport }] = await Promise.all([
    import('./mcp-server'),
    import('@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js'),
  ]);
  return { buildMcpServer, WebStandardStreamableHTTPServerTransport };
});

/** Headers the transport must not see again: the connection's own framing, and our bearer key. */
const notForwarded = new Set(['host', 'connection', 'content-length', 'transfer-encoding', 'authorization', 'keep-alive', 'upgrade']);

async function scopeOf(ctx: AppContext, caller: Caller, connectionId: string | undefined): Promise<McpScope> {
  const connections = new ConnectionRepo(ctx.store);
  if (connectionId !== undefined) {
    assertCallerMayUse(caller, connectionId);
    const pinned = await connections.get(connectionId);
    if (!pinned) throw new AppError('connection_not_found', `Connection ${connectionId} does not exist`);
    return { connections: [pinned], pinned };
  }
  if (caller.kind === 'platform') return { connections: await connections.list() };
  const found = await Promise.all(caller.connections.map((id) => connections.get(id)));
  return { connections: found.filter((c): c is Connection => c !== undefined) };
}

const jsonRpcHeaders = { 'content-type': 'application/json' };

/** A refusal the transport answers itself, as JSON-RPC (no request id is known). */
function jsonRpcRefusal(status: number, code: number, message: string, headers: Record<string, string> = {}): HttpResponse {
  return {
    status,
    headers: { ...jsonRpcHeaders, ...headers },
    body: JSON.stringify({ jsonrpc: '2.0', id: null, error: { code, message } }),
  };
}

/** The first byte that is not white space: `[` opens a JSON-RPC batch. */
function opensBatch(body: Buffer): boolean {
  for (const b of body) {
    if (b === 0x20 || b === 0x09 || b === 0x0a || b === 0x0d) continue;
    return b === 0x5b;
  }
  return false;
}

/** One MCP request (Streamable HTTP, stateless), answered whole: JSON, or an event stream that ends with the answer. */
async function serve(ctx: AppContext, tools: ProviderTools[], req: RouteRequest): Promise<HttpResponse> {
  // The protocol removed batching in 2025-06-18; answered, a batch of 100 tools/list grew a
  // 4.8 KB request into 8.6 MB. One message per request.
  if (opensBatch(req.body)) {
    return jsonRpcRefusal(400, -32600, 'JSON-RPC batches are not supported (removed from MCP in 2025-06-18): send one message per request');
  }
  const toolsets = chooseToolsets({ path: req.params.toolset, header: req.headers[toolsetHeader], query: req.query.get('toolsets') });
  if (!toolsets.ok) return jsonRpcRefusal(400, -32602, toolsets.message);
  const caller = req.caller ?? platformCaller;
  const scope = { ...(await scopeOf(ctx, caller, req.params.connectionId)), toolsets: toolsets.toolsets };
  const sdk = await loadSdk();
  const server = sdk.buildMcpServer({ ...scope, ctx, tools, caller });
  const transport = new sdk.WebStandardStreamableHTTPServerTransport({
    sessionIdGenerator: undefined,
    maxRequestBodySize: lambdaMaxBodyBytes,
  });
  try {
    await server.connect(transport);
    const headers = new Headers();
    for (const [name, value] of Object.entries(req.headers)) if (!notForwarded.has(name)) headers.set(name, value);
    const request = new Request(`http://mcp.invalid${req.path}`, { method: req.method, headers, body: new Uint8Array(req.body) });
    const response = await transport.handleRequest(request);
    const body = Buffer.from(await response.arrayBuffer());
    const outHeaders: Record<string, string> = {};
    response.headers.forEach((value, name) => {
      outHeaders[name] = value;
    });
    return { status: response.status, headers: outHeaders, body };
  } finally {
    await server.close();
  }
}

const jsonRpcMessage = z
  .looseObject({
    jsonrpc: z.literal('2.0'),
    id: z.union([z.string(), z.number(), z.null()]).optional(),
    method: z.string().optional(),
    params: z.unknown().optional(),
    result: z.unknown().optional(),
  })
  .describe('A JSON-RPC 2.0 message of the Model Context Protocol');
const jsonRpcError = z
  .looseObject({
    jsonrpc: z.literal('2.0'),
    id: z.union([z.string(), z.number(), z.null()]),
    error: z.looseObject({ code: z.number().int(), message: z.string() }),
  })
  .describe("The protocol transport's refusal, as JSON-RPC");

apiComponents.add(jsonRpcMessage, { id: 'JsonRpcMessage' });
apiComponents.add(jsonRpcError, { id: 'JsonRpcError' });

/** Path parameters of an MCP route: the connection, and the toolset of `/x/{toolset}`. */
function mcpParams(one: boolean, toolset: boolean) {
  if (!one && !toolset) return {};
  return {
    params: z.object({
      ...(one ? { connectionId: z.string() } : {}),
      ...(toolset ? { toolset: z.string().describe('One toolset (or `all`, `default`): only its tools are listed') } : {}),
    }),
  };
}

function mcpSpec(one: boolean, toolset = false): RouteSpec {
  return {
    summary: `${one ? 'The tool steps of one connection over MCP' : 'The tool steps over MCP, every connection the key opens'}${toolset ? ', one toolset' : ''}`,
    description:
      "Streamable HTTP transport, stateless (no sessions): send `Accept: application/json, text/event-stream`, one JSON-RPC message per request (a batch is refused with 400 and -32600). `GET` and `DELETE` answer 405. A browser `Origin` other than the product's own or the platform's (`ALLOWED_RETURN_ORIGINS`), or over loopback a `Host` that is not a loopback name, is refused with 403 `forbidden`. The toolsets listed can be chosen as GitHub's MCP server takes them: the `X-MCP-Toolsets` header (comma-separated), `?toolsets=`, or the path `/x/{toolset}`; `all` is every toolset, `default` GitHub's default set (context, repos, issues, pull_requests, users); none asked: every toolset. An unknown toolset is refused with 400 and -32602 naming it.",
    tags: ['mcp'],
    ...mcpParams(one, toolset),
    query: z.object({ toolsets: z.string().optional().describe('Comma-separated toolsets to list (as the X-MCP-Toolsets header)') }),
    body: jsonRpcMessage,
    answers: {
      200: {
        description: 'The JSON-RPC answer, whole or as an event stream that ends with it',
        body: jsonRpcMessage,
        alternatives: { 'text/event-stream': z.string() },
      },
      202: { description: 'A notification or response accepted (no body)' },
      406: { description: 'The Accept header lacks application/json or text/event-stream', body: jsonRpcError },
      415: { description: 'The body is not application/json', body: jsonRpcError },
    },
    errors: one ? ['connection_not_found', 'forbidden'] : ['forbidden'],
    errorBody: jsonRpcError,
  };
}

function postRoute(pattern: string, one: boolean, toolset = false) {
  // The transport reads the JSON-RPC message itself, and answers its own refusals as JSON-RPC.
  return { method: 'POST', pattern, auth: 'scoped', maxBodyBytes: lambdaMaxBodyBytes, rawBody: true, spec: mcpSpec(one, toolset) } as const;
}

// The SDK client opens a server-sent stream with GET and ends its session with DELETE; a 405
// tells it this server has neither (a 404 reads as a missing endpoint: clients gave up).
function notAllowedRoute(method: 'GET' | 'DELETE', pattern: string, one: boolean) {
  return { method, pattern, auth: 'none', spec: methodNotAllowedSpec(method, one) } as const;
}

/**
 * `POST /mcp` (every connection the key opens) and `POST /mcp/{connectionId}` (one): the tool
 * catalog over the Model Context Protocol, Streamable HTTP transport in stateless mode. `GET`
 * and `DELETE` (a server-sent stream, a session to end) answer 405: there are no sessions.
 */
export const mcpRouteTable = {
  mcp: postRoute('/mcp', false),
  mcpOne: postRoute('/mcp/:connectionId', true),
  mcpToolset: postRoute('/mcp/x/:toolset', false, true),
  mcpOneToolset: postRoute('/mcp/:connectionId/x/:toolset', true, true),
  mcpStream: notAllowedRoute('GET', '/mcp', false),
  mcpSession: notAllowedRoute('DELETE', '/mcp', false),
  mcpOneStream: notAllowedRoute('GET', '/mcp/:connectionId', true),
  mcpOneSession: notAllowedRoute('DELETE', '/mcp/:connectionId', true),
} satisfies RouteTable;

/** The MCP routes (`mcpRouteTable`), each with its handler and the Origin/Host check on the head. */
export function mcpRoutes(ctx: AppContext, tools: ProviderTools[]): Route[] {
  const refuseHead = mcpOriginRefusal(ctx.config);
  const post = { refuseHead, handle: (req: RouteRequest) => serve(ctx, tools, req) };
  const notAllowed = (method: 'GET' | 'DELETE', pattern: string) => ({
    refuseHead,
    handle: async () =>
      jsonRpcRefusal(405, -32000, `Method not allowed: ${method} ${pattern} (a stateless server: POST only)`, { allow: 'POST' }),
  });
  return bindRoutes(mcpRouteTable, {
    mcp: post,
    mcpOne: post,
    mcpToolset: post,
    mcpOneToolset: post,
    mcpStream: notAllowed('GET', '/mcp'),
    mcpSession: notAllowed('DELETE', '/mcp'),
    mcpOneStream: notAllowed('GET', '/mcp/:connectionId'),
    mcpOneSession: notAllowed('DELETE', '/mcp/:connectionId'),
  });
}

function methodNotAllowedSpec(method: 'GET' | 'DELETE', one: boolean): RouteSpec {
  return {
    summary: method === 'GET' ? 'No server-sent stream (stateless server): 405' : 'No session to end (stateless server): 405',
    description: 'Always 405 with `Allow: POST` and a JSON-RPC error: the server keeps no sessions and opens no stream outside a POST.',
    tags: ['mcp'],
    ...(one ? { params: z.object({ connectionId: z.string() }) } : {}),
    answers: {
      405: { description: 'Not allowed: only POST', body: jsonRpcError, headers: { Allow: 'POST' } },
    },
    errors: ['forbidden'],
  };
}
