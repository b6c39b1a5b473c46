import * as z from 'zod';
import { AppError } from '../domain/errors';

/**
 * What we accept back from the partner API. Its response payloads are not documented
 * beyond "creates answer the record with its `id`" and "lists answer `{pagination,
 * results}`", so records are loose objects, but those promises are checked.
 */
export const recordId = z.union([z.string().min(1), z.number().int()]);

/** A created or fetched record: any fields, but an `id`. */
export const createdRecord = z.looseObject({ id: recordId });

/** A page of a list endpoint. */
export const listPage = z.looseObject({
  pagination: z.record(z.string(), z.unknown()),
  results: z.array(z.record(z.string(), z.unknown())),
});

/** Parses a service answer or fails with `upstream_error` (never passes an unexpected shape on). */
export function parseAnswer<S extends z.ZodType>(schema: S, data: unknown, what: string): z.output<S> {
  const parsed = schema.safeParse(data);
  if (!parsed.success) {
    throw new AppError('upstream_error', `The collection service's answer to ${what} did not have the expected shape`, {
      problems: parsed.error.issues.slice(0, 5).map((i) => `${i.path.join('.') || '(answer)'}: ${i.message}`),
    });
  }
  return parsed.data;
}
