import type { z } from 'zod';
import { AppError } from '../domain/errors';
import { parseOrThrow } from '../domain/validation';
import type { HttpRequest } from './types';

/** Parses the JSON body and validates it; errors name the field. An empty body is `{}`. */
export function jsonBody<S extends z.ZodType>(req: HttpRequest, schema: S): z.output<S> {
  let value: unknown = {};
  if (req.body.length > 0) {
    try {
      value = JSON.parse(req.body.toString('utf8'));
    } catch {
      throw new AppError('invalid_input', 'Request body is not valid JSON', { fields: [{ field: '(body)', message: 'not valid JSON' }] });
    }
  }
  return parseOrThrow(schema, value);
}
