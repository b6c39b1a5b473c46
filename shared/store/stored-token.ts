import * as z from 'zod';
import { AppError } from '../domain/errors';
import { secretNames, type StoredToken, type TokenOwner } from '../domain/model';
import type { SecretStore } from '../ports';

const storedTokenSchema = z.object({
  accessToken: z.string().min(1),
  refreshToken: z.string().optional(),
  // Finite: zod refuses Infinity and NaN, which JSON would have written as null.
  expiresAt: z.number().optional(),
  tokenType: z.string().optional(),
  scope: z.string().optional(),
  origin: z.string().optional(),
  refreshTokenExpiresAt: z.number().optional(),
});

/** Reads a connection's token record from the secret store. */
export async function readStoredToken(
  secrets: SecretStore,
  connection: TokenOwner,
  opts?: { fresh?: boolean },
): Promise<StoredToken | undefined> {
  const connectionId = connection.id;
  const raw = await secrets.get(secretNames.connectionToken(connection), opts);
  if (raw === undefined) return undefined;
  let json: unknown;
  try {
    json = JSON.parse(raw);
  } catch {
    json = undefined;
  }
  const parsed = storedTokenSchema.safeParse(json);
  if (!parsed.success) throw malformedStoredToken(connectionId);
  return parsed.data;
}

/** `details.reason` of a stored token that cannot be read: token providers mark the connection for it. */
export const malformedStoredTokenReason = 'malformed_stored_token';

function malformedStoredToken(connectionId: string): AppError {
  return new AppError('internal', `Stored token of connection ${connectionId} is malformed`, { reason: malformedStoredTokenReason });
}

/**
 * Writes a connection's token record, only if it reads back: a value the reader refuses
 * (an expiry of Infinity becomes `null` in JSON) would leave the connection unusable.
 */
export async function writeStoredToken(secrets: SecretStore, connection: TokenOwner, token: StoredToken): Promise<void> {
  const text = JSON.stringify(token);
  if (!storedTokenSchema.safeParse(JSON.parse(text)).success) {
    throw new AppError('internal', `Refused to store a token for connection ${connection.id} that could not be read back`);
  }
  await secrets.put(secretNames.connectionToken(connection), text);
}
