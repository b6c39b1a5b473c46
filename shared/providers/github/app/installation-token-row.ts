import * as z from 'zod';
import type { Clock, Store } from '../../../ports';
import type { TokenSealer } from '../../../ports/token-sealer';
import { keys } from '../../../store/table-design';

/** An installation access token and the origin it was issued for (the App's API). */
export interface InstallationToken {
  token: string;
  /** Epoch ms. */
  expiresAt: number;
  origin: string;
}

export interface TokenRowDeps {
  store: Store;
  sealer: TokenSealer;
  clock: Clock;
}

const rowSchema = z.object({ sealed: z.string().min(1).max(8192) });
const sealedSchema = z.object({ token: z.string().min(1), expiresAt: z.number(), origin: z.string().min(1) });

/**
 * The shared token of an installation: one row (`APPTOKEN#<id>`) whose `sealed` attribute holds
 * the token, its expiry and origin encrypted by the sealer with the row's key as context, so the
 * table, its backups and its exports hold no readable token, and a sealed value copied into
 * another installation's row does not open there. The row's `ttl` is the token's expiry, so
 * DynamoDB deletes it once the token is dead (an expired row reads as absent before that).
 */
export async function readTokenRow(
  deps: TokenRowDeps,
  installationId: number,
  consistent: boolean,
): Promise<InstallationToken | undefined> {
  const key = keys.appToken(installationId);
  const row = rowSchema.safeParse(await deps.store.get(key, consistent ? { consistent } : undefined));
  if (!row.success) return undefined;
  const plain = await deps.sealer.open(row.data.sealed, key.pk);
  if (plain === undefined) return undefined;
  try {
    const parsed = sealedSchema.safeParse(JSON.parse(plain));
    return parsed.success ? parsed.data : undefined;
  } catch {
    return undefined;
  }
}

/** Replaces the installation's row with this token, sealed. */
export async function writeTokenRow(deps: TokenRowDeps, installationId: number, t: InstallationToken): Promise<void> {
  const key = keys.appToken(installationId);
  const sealed = await deps.sealer.seal(JSON.stringify({ token: t.token, expiresAt: t.expiresAt, origin: t.origin }), key.pk);
  await deps.store.put({ ...key, sealed, ttl: Math.ceil(t.expiresAt / 1000) });
}
