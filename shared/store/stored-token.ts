import * as z from 'zod';
import { AppError } from '../domain/errors';
import { secretNames, type StoredToken } from '../domain/model';
import type { SecretStore } from '../ports';

const storedTokenSchema = z.object({
  accessToken: z.string().min(1),
  refreshToken: z.string().optional(),
  expiresAt: z.number().optional(),
  tokenType: z.string().optional(),
  scope: z.string().optional(),
  origin: z.string().optional(),
  refreshTokenExpiresAt: z.number().optional(),
});

/** Reads a connection's token record from the secret store. */
export async function readStoredToken(
  secrets: SecretStore,
  connectionId: string,
  opts?: { fresh?: boolean },
): Promise<StoredToken | undefined> {
  const raw = await secrets.get(secretNames.connectionToken(connectionId), opts);
  if (raw === undefined) return undefined;
  const parsed = storedTokenSchema.safeParse(JSON.parse(raw));
  if (!parsed.success) throw new AppError('internal', `Stored token of connection ${connectionId} is malformed`);
  return parsed.data;
}

export async function writeStoredToken(secrets: SecretStore, connectionId: string, token: StoredToken): Promise<void> {
  await secrets.put(secretNames.connectionToken(connectionId), JSON.stringify(token));
}
