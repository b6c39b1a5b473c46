import * as z from 'zod';

/**
 * The platform's own id for one of its end users (a user id, an e-mail): kept on each connection
 * made for them and in the table's keys, so it is bounded and free of separators that mean
 * anything in a key or a URL.
 */
export const endUserIdSchema = z
  .string()
  .regex(/^[A-Za-z0-9._:@+-]{1,128}$/, 'must be 1 to 128 letters, digits or . _ : @ + -')
  .describe("The platform's id of its end user");
