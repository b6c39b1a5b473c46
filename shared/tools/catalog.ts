import * as z from 'zod';
import type { Provider } from '../domain/model';
import type { ProviderTools, ToolStep } from './tool-step';

export interface CatalogEntry {
  id: string;
  provider: Provider;
  title: string;
  description: string;
  /** JSON Schema of the input, generated from the step's zod schema (what a caller sends). */
  inputSchema: Record<string, unknown>;
  outputDescription: string;
  /** Deletes or overwrites something; such steps accept `dryRun`. */
  destructive: boolean;
}

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
    inputSchema: inputJsonSchema(step.input),
    outputDescription: step.outputDescription,
    destructive: step.destructive === true,
  }));
}
