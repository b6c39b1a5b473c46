import * as z from 'zod';

/** The `installation` object of an App delivery, as far as the lifecycle reads it (bounded). */
export const installationPayload = z.object({
  id: z.number().int().positive(),
  repository_selection: z.enum(['all', 'selected']).optional(),
  permissions: z.record(z.string().max(100), z.string().max(20)).optional(),
  events: z.array(z.string().max(100)).max(500).optional(),
});

/** A repository as installation deliveries list it. */
export const listedRepository = z.object({ full_name: z.string().min(3).max(201) });

/** The problem of a payload that did not fit, naming the fields. */
export function fieldsOf(error: z.ZodError): string {
  return [...new Set(error.issues.map((i) => i.path.join('.') || '(body)'))].join(', ');
}
