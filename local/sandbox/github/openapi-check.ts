import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { sampleLogPath, serveSampleLog } from './sample-log';
import { startSimulatedHttp, type SimulatedResponse, type SimulatedServer, type RecordedRequest } from '../simulated-http';

/**
 * A simulated code host on loopback that holds every request against the code host's published
 * OpenAPI description (the operations extracted by test/fixtures/extract-github-openapi.ts):
 * the method and path template must be a documented operation, query parameters must be
 * declared ones, the JSON body must carry the required fields, no undeclared field, and
 * values of the declared JSON types and enums. GraphQL (`POST /graphql`, or `/api/graphql`
 * beside an enterprise `/api/v3`) must be `{query, variables}`.
 */

interface OpenApiOperation {
  operationId: string;
  method: string;
  path: string;
  parameters: { name: string; in: string; required: boolean }[];
  body: null | {
    requestRequired: boolean;
    required: string[];
    properties: Record<string, { types: string[]; enum?: unknown[] }>;
    additionalProperties: boolean;
  };
}

const fixture = JSON.parse(readFileSync(fileURLToPath(new URL('./github-openapi-ops.json', import.meta.url)), 'utf8')) as {
  operations: OpenApiOperation[];
};

interface Compiled {
  op: OpenApiOperation;
  pattern: RegExp;
  names: string[];
  /** Literal characters in the template: the more, the more specific. */
  weight: number;
}

const compiled: Compiled[] = fixture.operations.map((op) => {
  const names: string[] = [];
  const source = op.path
    .split(/(\{[^}]+\})/)
    .map((part) => {
      const m = /^\{([^}]+)\}$/.exec(part);
      if (!m?.[1]) return part.replace(/[.*+?^$()|[\]\\]/g, '\\$&');
      names.push(m[1]);
      return m[1] === 'path' ? '\u0000' : '([^/]+)';
    })
    .join('')
    // The contents path may be left out (Octokit then drops the slash too): the root folder.
    .replace('/\u0000', '(?:/([^/]*))?');
  return { op, pattern: new RegExp(`^${source}$`), names, weight: op.path.replace(/\{[^}]+\}/g, '').length };
});

export interface MatchedRequest extends RecordedRequest {
  operationId: string;
  /** Path parameters, decoded. */
  params: Record<string, string>;
}

function jsonType(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'array';
  if (typeof v === 'number') return Number.isInteger(v) ? 'integer' : 'number';
  return typeof v;
}

function typeAllowed(v: unknown, types: string[]): boolean {
  if (types.length === 0) return true;
  const t = jsonType(v);
  return types.includes(t) || (t === 'integer' && types.includes('number'));
}

/** Every way `req` departs from the description; empty when it is a documented, well-formed call. */
export function checkAgainstOpenApi(req: RecordedRequest, basePath = ''): { problems: string[]; match?: MatchedRequest } {
  const label = `${req.method} ${req.url}`;
  const graphqlPath = basePath.endsWith('/api/v3') ? '/api/graphql' : `${basePath}/graphql`;
  if (req.path === graphqlPath) {
    const body = req.json as Record<string, unknown> | undefined;
    const problems: string[] = [];
    if (req.method !== 'POST') problems.push(`${label}: GraphQL takes POST`);
    if (typeof body?.query !== 'string') problems.push(`${label}: GraphQL body needs a query string`);
    for (const k of Object.keys(body ?? {}))
      if (k !== 'query' && k !== 'variables' && k !== 'operationName') problems.push(`${label}: unknown GraphQL body field ${k}`);
    return { problems, match: { ...req, operationId: 'graphql', params: {} } };
  }
  if (!req.path.startsWith(basePath)) return { problems: [`${label}: outside the API base ${basePath}`] };
  const path = req.path.slice(basePath.length) || '/';
  const candidates = compiled.filter((c) => c.op.method === req.method && c.pattern.test(path)).sort((a, b) => b.weight - a.weight);
  const found = candidates[0];
  if (!found) return { problems: [`${label}: no documented operation ${req.method} ${path}`] };
  const { op } = found;
  const problems: string[] = [];
  const values = found.pattern.exec(path)?.slice(1) ?? [];
  const params: Record<string, string> = {};
  found.names.forEach((name, i) => {
    params[name] = decodeURIComponent(values[i] ?? '');
    if (params[name] === '' && name !== 'path') problems.push(`${op.operationId}: empty path parameter ${name}`);
  });
  const queryParams = op.parameters.filter((p) => p.in === 'query');
  for (const name of new Set(req.query.keys())) {
    if (!queryParams.some((p) => p.name === name)) problems.push(`${op.operationId}: undeclared query parameter ${name}`);
  }
  for (const p of queryParams)
    if (p.required && !req.query.has(p.name)) problems.push(`${op.operationId}: missing required query parameter ${p.name}`);

  const hasBody = req.body.length > 0;
  if (!op.body) {
    if (hasBody && req.body !== '{}') problems.push(`${op.operationId}: takes no request body, got ${req.body.slice(0, 200)}`);
  } else if (!hasBody) {
    if (op.body.requestRequired || op.body.required.length > 0) problems.push(`${op.operationId}: request body required`);
  } else if (jsonType(req.json) !== 'object') {
    problems.push(`${op.operationId}: request body must be a JSON object`);
  } else {
    const body = req.json as Record<string, unknown>;
    for (const name of op.body.required) if (!(name in body)) problems.push(`${op.operationId}: missing required body field ${name}`);
    for (const [name, value] of Object.entries(body)) {
      const prop = op.body.properties[name];
      if (!prop) {
        if (!op.body.additionalProperties) problems.push(`${op.operationId}: unknown body field ${name}`);
        continue;
      }
      if (!typeAllowed(value, prop.types))
        problems.push(`${op.operationId}: body field ${name} is ${jsonType(value)}, expected ${prop.types.join('|')}`);
      if (prop.enum && !prop.enum.includes(value))
        problems.push(`${op.operationId}: body field ${name} = ${JSON.stringify(value)} is not one of ${JSON.stringify(prop.enum)}`);
    }
  }
  return { problems, match: { ...req, operationId: op.operationId, params } };
}

export type OperationResponder = (req: MatchedRequest) => SimulatedResponse | Promise<SimulatedResponse>;

export interface OpenApiSimulatedGitHub {
  server: SimulatedServer;
  /** API base URL to configure (GITHUB_API_URL or a connection's apiBaseUrl). */
  url: string;
  /** Every departure from the description seen so far. */
  problems: string[];
  /** Requests that matched a documented operation, in order. */
  calls: MatchedRequest[];
  /** Requests of one operation. */
  callsOf(operationId: string): MatchedRequest[];
  /** Answer an operation differently from the default. */
  on(operationId: string, responder: OperationResponder): void;
  reset(): void;
  close(): Promise<void>;
}

/**
 * Starts the simulated code host. `defaults` answer each operation (by operationId); anything unanswered
 * gets `{}` with 200. `basePath` serves the API under a prefix (an enterprise `/api/v3`).
 */
export async function startOpenApiSimulatedGitHub(
  defaults: Record<string, OperationResponder>,
  basePath = '',
): Promise<OpenApiSimulatedGitHub> {
  const problems: string[] = [];
  const calls: MatchedRequest[] = [];
  let overrides: Record<string, OperationResponder> = {};
  const server = await startSimulatedHttp(async (req) => {
    // The job log's signed URL: log storage, outside the API, fetched without the token.
    if (req.path === sampleLogPath) return serveSampleLog(String(req.headers.range ?? ''));
    if (!/^(?:token|bearer) \S+/i.test(String(req.headers.authorization ?? ''))) problems.push(`${req.method} ${req.url}: no token`);
    const { problems: found, match } = checkAgainstOpenApi(req, basePath);
    problems.push(...found);
    if (!match) return { status: 404, body: { message: 'Not Found' } };
    calls.push(match);
    const responder = overrides[match.operationId] ?? defaults[match.operationId];
    return responder ? responder(match) : { status: 200, body: {} };
  });
  return {
    server,
    url: `${server.url}${basePath}`,
    problems,
    calls,
    callsOf: (id) => calls.filter((c) => c.operationId === id),
    on: (id, responder) => {
      overrides[id] = responder;
    },
    reset: () => {
      problems.length = 0;
      calls.length = 0;
      server.requests.length = 0;
      overrides = {};
    },
    close: () => server.close(),
  };
}
