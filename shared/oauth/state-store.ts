import * as z from 'zod';
import { ConditionFailedError } from '../domain/errors';
import type { Provider } from '../domain/model';
import type { Clock, Item, Store } from '../ports';
import { keys, ttlIn } from '../store/table-design';

/** A state lives 10 minutes (CONTRACT.md). */
export const stateLifetimeMs = 10 * 60 * 1000;

/** What the callback needs, kept server-side under the state's hash. */
export interface OAuthStateRecord {
  provider: Provider;
  redirectUri: string;
  /** The PKCE verifier never leaves the server. */
  codeVerifier: string;
  returnTo?: string;
  label?: string;
  /** Reconnect: the connection whose token the callback replaces. */
  connectionId?: string;
  expiresAt: number;
}

const recordSchema = z.object({
  provider: z.enum(['github', 'contentsnare']),
  redirectUri: z.string(),
  codeVerifier: z.string().min(43),
  returnTo: z.string().optional(),
  label: z.string().optional(),
  connectionId: z.string().optional(),
  expiresAt: z.number(),
});

export async function saveState(store: Store, hash: string, record: OAuthStateRecord): Promise<void> {
  await store.put(
    { ...keys.oauthState(hash), ...record, ttl: ttlIn(record.expiresAt, 1) },
    // A collision of 256-bit random values would be a bug, not a case to handle.
    { ifNotExists: true },
  );
}

/**
 * Takes the state out of the store: exactly one caller gets the record (conditional
 * delete), later or concurrent callers get undefined, as do expired states.
 */
export async function consumeState(store: Store, clock: Clock, hash: string): Promise<OAuthStateRecord | undefined> {
  let item: Record<string, unknown> | undefined;
  try {
    item = await store.delete<Item>(keys.oauthState(hash), { ifExists: true });
  } catch (e) {
    if (e instanceof ConditionFailedError) return undefined;
    throw e;
  }
  if (!item) return undefined;
  const parsed = recordSchema.safeParse(item);
  if (!parsed.success) return undefined;
  // The ttl has second granularity and DynamoDB deletes late: check the exact expiry too.
  if (parsed.data.expiresAt <= clock.now()) return undefined;
  return parsed.data;
}
