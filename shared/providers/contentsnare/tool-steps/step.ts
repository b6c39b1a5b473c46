import type * as z from 'zod';
import { lazySchemas, type LazyStep, type ToolStep } from '../../../tools/tool-step';
import type { ContentSnareClient } from '../client';

export type ContentSnareStep<S extends z.ZodType = z.ZodType, O extends z.ZodType = z.ZodType> = ToolStep<S, O, ContentSnareClient>;

/** Declares a collection-service step with its input and output types inferred from its schemas, built on first use. */
export function contentsnareStep<S extends z.ZodType, O extends z.ZodType>(
  step: Omit<LazyStep<S, O, ContentSnareClient>, 'provider'>,
): ContentSnareStep<S, O> {
  return lazySchemas<S, O, ContentSnareClient>({ provider: 'contentsnare', ...step });
}
