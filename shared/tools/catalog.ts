import * as z from 'zod';
import type { Provider } from '../domain/model';
import { apiComponents } from '../domain/model-schemas';
import { dryRunRequest, type ProviderTools, type StepPermissions, type ToolStep } from './tool-step';
import { type Toolset, toolsets } from './toolsets';

export interface CatalogEntry {
  id: string;
  provider: Provider;
  title: string;
  description: string;
  /** The group it is listed in: `/mcp` can be asked for some toolsets only. */
  toolset: Toolset;
  /** JSON Schema of the input, generated from the step's zod schema (what a caller sends). */
  inputSchema: Record<string, unknown>;
  /** JSON Schema of the answer's `data`, generated from the step's zod output schema (what a caller gets). */
  outputSchema: Record<string, unknown>;
  /** What the connection's grant must include: fine-grained permissions and OAuth scopes. */
  permissions: StepPermissions;
  /** Deletes or overwrites something; such steps accept `dryRun`. */
  destructive: boolean;
}

/** A catalog entry as a schema, for the API's description. */
export const catalogEntrySchema = z.object({
  id: z.string(),
  provider: z.enum(['github', 'contentsnare']),
  title: z.string(),
  description: z.string(),
  toolset: z
    .enum(toolsets)
    .describe("The group it is listed in, named as GitHub's MCP server names its toolsets; `/mcp` takes a toolset filter"),
  inputSchema: z.record(z.string(), z.unknown()).describe('JSON Schema of the input: the truth for what the step takes'),
  outputSchema: z.record(z.string(), z.unknown()).describe('JSON Schema of `data` when the step succeeds'),
  permissions: z.object({
    fineGrained: z.record(z.string(), z.enum(['read', 'write'])).optional(),
    oauthScopes: z.array(z.string()),
    note: z.string().optional(),
  }),
  destructive: z.boolean(),
}) satisfies z.ZodType<CatalogEntry>;
apiComponents.add(catalogEntrySchema, { id: 'CatalogEntry' });

const schemaCache = new WeakMap<z.ZodType, Record<string, unknown>>();

/** The step's input as JSON Schema, input side (defaults optional, transforms as accepted). */
export function inputJsonSchema(schema: z.ZodType): Record<string, unknown> {
  let cached = schemaCache.get(schema);
  if (!cached) {
    cached = z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any' }) as Record<string, unknown>;
    schemaCache.set(schema, cached);
  }
  return cached;
}

const dryRunCache = new WeakMap<z.ZodType, z.ZodType>();
const answerCache = new WeakMap<z.ZodType, z.ZodType>();

/**
 * What a destructive step answers to `dryRun: true`: the request, and any of the output's
 * fields the step knows before sending (e.g. `created`).
 */
export function dryRunSchema(step: ToolStep): z.ZodType {
  let schema = dryRunCache.get(step.output);
  if (!schema) {
    const known = step.output instanceof z.ZodObject ? step.output.partial().shape : {};
    schema = z.object({ ...known, ...dryRunRequest });
    dryRunCache.set(step.output, schema);
  }
  return schema;
}

/** Every answer a step can give: its output, or for a destructive step also a dry run's description. */
export function answerSchema(step: ToolStep): z.ZodType {
  if (!step.destructive) return step.output;
  let schema = answerCache.get(step.output);
  if (!schema) {
    schema = z.union([dryRunSchema(step), step.output]);
    answerCache.set(step.output, schema);
  }
  return schema;
}

/** The step's answer as JSON Schema, output side. */
export function outputJsonSchema(step: ToolStep): Record<string, unknown> {
  const schema = answerSchema(step);
  let cached = schemaCache.get(schema);
  if (!cached) {
    cached = z.toJSONSchema(schema, { io: 'output', unrepresentable: 'any' }) as Record<string, unknown>;
    schemaCache.set(schema, cached);
  }
  return cached;
}

/** Every step of every provider, by id; duplicate ids are a programming error. */
export function stepIndex(tools: ProviderTools[]): Map<string, { step: ToolStep; provider: ProviderTools }> {
  const index = new Map<string, { step: ToolStep; provider: ProviderTools }>();
  for (const provider of tools) {
    for (const step of provider.steps) {
      if (index.has(step.id)) throw new Error(`duplicate tool step id ${step.id}`);
      index.set(step.id, { step, provider });
    }
  }
  return index;
}

/** The catalog of `GET /tools`, in a stable order: providers as given, steps as each provider lists them. */
export function catalog(tools: ProviderTools[]): CatalogEntry[] {
  return [...stepIndex(tools).values()].map(({ step }) => ({
    id: step.id,
    provider: step.provider,
    title: step.title,
    description: step.description,
    toolset: step.toolset,
    inputSchema: inputJsonSchema(step.input),
    outputSchema: outputJsonSchema(step),
    permissions: step.permissions,
    destructive: step.destructive === true,
  }));
}
