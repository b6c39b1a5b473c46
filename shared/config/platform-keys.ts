import { AppError } from '../domain/errors';
import { sameSecret } from '../domain/same-secret';

/**
 * The shortest platform key or dispatch signing secret accepted: 32 characters leave far
 * more than 128 bits to guess in any alphabet keys are written in (the generated ones
 * are 48). A shorter one from the environment stops the start (shared/config/config.ts).
 */
export const minKeyLength = 32;

/**
 * A platform key setting holds one key, or during a rotation two: `<new>,<old>`, both
 * valid until the old one is removed (docs/operations.md, "Rotate the platform key").
 * Keys never contain a comma (the generated ones are letters, digits, `_` and `-`).
 */
export const maxPlatformKeys = 2;

/**
 * How long a Lambda container keeps the platform key it read from Secrets Manager before it
 * reads it again: a change of the secret reaches every warm container within this time.
 */
export const platformKeyMaxAgeMs = 5 * 60_000;

export function splitPlatformKeys(value: string): string[] {
  return value.split(',').map((k) => k.trim());
}

/** What is wrong with a platform key setting, without quoting it; empty when it is usable. */
export function platformKeyProblems(value: string): string[] {
  const keys = splitPlatformKeys(value);
  const problems: string[] = [];
  if (keys.length > maxPlatformKeys) problems.push(`holds ${keys.length} keys: at most two keys, "<new>,<old>", during a rotation`);
  if (keys.some((k) => k.length < minKeyLength)) {
    problems.push(
      keys.length > 1
        ? `each of its comma-separated keys must be at least ${minKeyLength} characters`
        : `must be at least ${minKeyLength} characters`,
    );
  }
  return problems;
}

/**
 * The valid platform keys of a setting read at run time (the environment was checked at
 * start; a Secrets Manager value is checked here). A weak or malformed value refuses every
 * request with `not_configured` rather than accept a guessable key.
 */
export function platformKeys(
  value: string,
  source = 'The platform key (PLATFORM_API_KEY, or the secret named by PLATFORM_API_KEY_SECRET_ARN)',
): string[] {
  const problems = platformKeyProblems(value);
  if (problems.length > 0) throw new AppError('not_configured', `${source} ${problems.join('; ')}`);
  return splitPlatformKeys(value);
}

/**
 * Whether `given` is one of the platform keys of `setting` (two during a rotation). Every key
 * is always compared, in constant time; a weak or malformed setting throws `not_configured`
 * (platformKeys).
 */
export function isPlatformKey(given: string, setting: string): boolean {
  let matched = false;
  for (const key of platformKeys(setting)) if (sameSecret(given, key)) matched = true;
  return matched && given.length > 0;
}
