import type { z } from 'zod';
import { InvalidInputError, type FieldProblem } from './errors';

/** Turns zod issues into field problems with dotted paths under `root`. */
export function fieldProblems(error: z.ZodError, root?: string): FieldProblem[] {
  return error.issues.map((issue) => {
    const path = issue.path.map(String).join('.');
    const field = [root, path].filter((s) => s !== undefined && s !== '').join('.') || (root ?? '(body)');
    // zod words a missing field as a type error ("expected string, received undefined"); say it plainly.
    if (issue.code === 'invalid_type' && / received undefined$/.test(issue.message)) {
      return { field, message: `is required (${String(issue.expected)})` };
    }
    return { field, message: issue.message };
  });
}

/** Parses `value` with `schema` or throws `InvalidInputError` naming each bad field. */
export function parseOrThrow<S extends z.ZodType>(schema: S, value: unknown, root?: string): z.output<S> {
  const result = schema.safeParse(value);
  if (!result.success) throw new InvalidInputError(fieldProblems(result.error, root));
  return result.data;
}
