import * as z from 'zod';

/**
 * Bounds on the identities the services name for a token. They are stored on the
 * connection and served in every listing, so an answer of any size must not become one:
 * a 300 KB login would make every listing fail and its token secret an orphan.
 */

/** The code host's logins: letters, digits and hyphens (underscores for managed users), at most 39 characters. */
export const githubLogin = z
  .string()
  .max(39, 'must be at most 39 characters')
  .regex(/^[A-Za-z0-9][A-Za-z0-9_-]*$/, 'must be letters, digits, hyphens or underscores');

/** The code host's account ids: positive integers (JSON numbers). */
export const githubAccountId = z.number().int('must be an integer').positive('must be positive').max(Number.MAX_SAFE_INTEGER);

/** The collection service's `GET /partner_api/v1/me` fields, when present. */
export const contentSnareIdentityBounds = { id: 128, email: 254, full_name: 200 } as const;
