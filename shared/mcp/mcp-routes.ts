import { assertCallerMayUse, platformCaller, type Caller } from '../domain/caller';
import type { Connection } from '../domain/model';
import { AppError } from '../domain/errors';
import { loadOnce } from '../domain/load-once';
import { lambdaMaxBodyBytes } from '../http/body-limits';
import type { HttpResponse, Route, RouteRequest } from '../http/types';
import type { AppContext } from '../ports/app-context';
import { ConnectionRepo } from '../store/connection-repo';
import type { ProviderTools } from '../tools/tool-step';
import type { McpScope } from './mcp-tools';

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

/** One MCP request (Streamable HTTP, stateless), answered whole: JSON, or an event stream that ends with the answer. */
async function serve(ctx: AppContext, tools: ProviderTools[], req: RouteRequest): Promise<HttpResponse> {
  const caller = req.caller ?? platformCaller;
  const scope = await scopeOf(ctx, caller, req.params.connectionId);
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

/**
 * `POST /mcp` (every connection the key opens) and `POST /mcp/{connectionId}` (one): the tool
 * catalog over the Model Context Protocol, Streamable HTTP transport in stateless mode. `GET`
 * and `DELETE` (a server-sent stream, a session to end) answer 405: there are no sessions.
 */
export function mcpRoutes(ctx: AppContext, tools: ProviderTools[]): Route[] {
  const handle = (req: RouteRequest) => serve(ctx, tools, req);
  return [
    { method: 'POST', pattern: '/mcp', auth: 'scoped', maxBodyBytes: lambdaMaxBodyBytes, handle },
    { method: 'POST', pattern: '/mcp/:connectionId', auth: 'scoped', maxBodyBytes: lambdaMaxBodyBytes, handle },
  ];
}
