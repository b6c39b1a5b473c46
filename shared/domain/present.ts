import { AppError } from './errors';

/**
 * A value the code has just made sure is there (an index inside the bounds it checked, a key
 * it set). Its absence would be a bug: reported as an `internal` error naming what is missing,
 * rather than carried on as `undefined` the way a `!` assertion would.
 */
export function present<T>(value: T | null | undefined, what: string): T {
  if (value === undefined || value === null) throw new AppError('internal', `Internal error: ${what} is missing`);
  return value;
}
