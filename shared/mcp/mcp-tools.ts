import type { Connection, Provider } from '../domain/model';
import type { CatalogEntry } from '../tools/catalog';
import type { Toolset } from '../tools/toolsets';
import { mcpToolName } from './tool-names';
import { toolAnnotations, type McpToolAnnotations } from './tool-annotations';

/** The connections an MCP endpoint serves: one (`/mcp/{connectionId}`) or every one the key opens (`/mcp`). */
export interface McpScope {
  connections: Connection[];
  /** Set on `/mcp/{connectionId}`: calls need no connection argument. */
  pinned?: Connection;
  /** The toolsets asked for (toolset-filter.ts); undefined: every one. */
  toolsets?: ReadonlySet<Toolset>;
}

type JsonSchema = Record<string, unknown>;

export interface McpTool {
  name: string;
  title: string;
  description: string;
  inputSchema: JsonSchema;
  outputSchema: JsonSchema;
  annotations: McpToolAnnotations;
}

/** The argument that picks the connection when a provider has several in scope. */
export const connectionArgument = 'connectionId';

/** Connections listed by value in a schema's enum; past this the argument is described, not enumerated. */
const maxEnumeratedConnections = 50;

/** A step's catalog entry: its input and output schemas, permissions and whether it is destructive. */
export type McpCatalogEntry = CatalogEntry;

/** JSON Schema without the `$schema` dialect line: clients validate with their own draft. */
function bare(schema: JsonSchema): JsonSchema {
  const { $schema: _dialect, ...rest } = schema;
  return rest;
}

function isObjectSchema(schema: JsonSchema): boolean {
  return schema.type === 'object';
}

/** `anyOf` of objects (a destructive step's answer, or its dry run's description) is an object too. */
function isUnionOfObjects(schema: JsonSchema): boolean {
  const branches = schema.anyOf;
  return Array.isArray(branches) && branches.length > 0 && branches.every((b) => isObjectSchema(b as JsonSchema));
}

/**
 * The protocol's output schema must describe an object: a step whose output is a list (or a
 * scalar) is published as `{result: <output>}`, and its structured result is wrapped alike.
 */
export function mcpOutputSchema(output: JsonSchema): { schema: JsonSchema; wrapped: boolean } {
  const schema = bare(output);
  if (isObjectSchema(schema)) return { schema, wrapped: false };
  if (isUnionOfObjects(schema)) return { schema: { type: 'object', ...schema }, wrapped: false };
  return { schema: { type: 'object', properties: { result: schema }, required: ['result'] }, wrapped: true };
}

function connectionsByProvider(scope: McpScope): Map<Provider, Connection[]> {
  const out = new Map<Provider, Connection[]>();
  for (const c of scope.pinned ? [scope.pinned] : scope.connections) out.set(c.provider, [...(out.get(c.provider) ?? []), c]);
  return out;
}

function describeConnection(c: Connection): string {
  return `${c.id} (${[c.label, c.accountLogin].filter(Boolean).join(', ')})`;
}

function withConnectionArgument(input: JsonSchema, choices: Connection[]): JsonSchema {
  const properties = { ...((input.properties as Record<string, unknown> | undefined) ?? {}) };
  const listed = choices.slice(0, maxEnumeratedConnections);
  properties[connectionArgument] = {
    type: 'string',
    description: `Which ${choices[0]?.provider} connection to act as: ${listed.map(describeConnection).join('; ')}${
      choices.length > listed.length ? `; and ${choices.length - listed.length} more` : ''
    }.`,
    ...(choices.length === listed.length ? { enum: listed.map((c) => c.id) } : {}),
  };
  const required = [...((input.required as string[] | undefined) ?? []), connectionArgument];
  return { ...input, properties, required };
}

function modelDescription(entry: McpCatalogEntry): string {
  const parts = [entry.description];
  if (entry.destructive) parts.push('Pass "dryRun": true to see the request it would send without sending it.');
  return parts.join('\n\n');
}

/** The tools an MCP endpoint lists: every step of each provider with a connection in scope, of the toolsets asked for. */
export function mcpTools(catalog: McpCatalogEntry[], scope: McpScope): McpTool[] {
  const byProvider = connectionsByProvider(scope);
  return catalog.flatMap((entry) => {
    const choices = byProvider.get(entry.provider);
    if (!choices || (scope.toolsets && !scope.toolsets.has(entry.toolset))) return [];
    const input = bare(entry.inputSchema);
    return [
      {
        name: mcpToolName(entry.id),
        title: entry.title,
        description: modelDescription(entry),
        inputSchema: choices.length > 1 ? withConnectionArgument(input, choices) : input,
        outputSchema: mcpOutputSchema(entry.outputSchema).schema,
        annotations: toolAnnotations(entry),
      },
    ];
  });
}

export type ConnectionChoice = { ok: true; connectionId: string; input: Record<string, unknown> } | { ok: false; message: string };

/**
 * Which connection a call acts as, and the step's own input (the connection argument taken
 * out). On `/mcp/{id}`, or with one connection of the provider, no argument is needed.
 */
export function chooseConnection(provider: Provider, args: Record<string, unknown>, scope: McpScope): ConnectionChoice {
  const { [connectionArgument]: given, ...input } = args;
  const choices = connectionsByProvider(scope).get(provider) ?? [];
  if (scope.pinned) return { ok: true, connectionId: scope.pinned.id, input };
  if (choices.length === 1 && given === undefined) return { ok: true, connectionId: choices[0]?.id ?? '', input };
  if (typeof given !== 'string') {
    return { ok: false, message: `${connectionArgument}: is required: one of ${choices.map((c) => c.id).join(', ')}` };
  }
  if (!choices.some((c) => c.id === given)) {
    return { ok: false, message: `${connectionArgument}: ${given} is not a ${provider} connection this endpoint serves` };
  }
  return { ok: true, connectionId: given, input };
}
