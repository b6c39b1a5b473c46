import * as z from 'zod';
import { AppError } from '../../domain/errors';

/**
 * What we accept back from the partner API (its reference's responses and endpoints): a single resource
 * is the bare object with its `id` at the top level, a list is `{pagination, results}`.
 * Records stay loose objects (the service may add fields), but what we rely on is checked.
 */
export const recordId = z.union([z.string().min(1), z.number().int()]);

/** A created or fetched record: any fields, but an `id`. */
export const createdRecord = z.looseObject({ id: recordId });

/** A client (`POST /clients`, `GET /clients/{id}`): create-request needs its `email`. */
export const clientRecord = z.looseObject({ id: recordId, email: z.string().min(1) });

/** A request (`POST /requests`): `status` (draft, published, ...) and the client's `share_link`. */
export const requestRecord = z.looseObject({
  id: recordId,
  status: z.string().optional(),
  share_link: z.string().nullable().optional(),
});

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
