import { createHash } from 'node:crypto';
import * as z from 'zod';
import { ConditionFailedError } from '../domain/errors';
import type { Clock, Item, Store } from '../ports';
import { keys, ttlIn } from './table-design';

/** What a connect page offers: the code host by OAuth or through its App (a fine-grained token beside them), the collection service by OAuth. */
export const connectChoices = ['github', 'github_app', 'contentsnare'] as const;
export type ConnectChoice = (typeof connectChoices)[number];

/** A connect page's session as kept in the table, under the hash of its token. */
export interface ConnectSession {
  endUserId: string;
  providers: ConnectChoice[];
  returnTo?: string;
  label?: string;
  /** Epoch ms; the page and every flow it started are refused after it. */
  expiresAt: number;
  /** Set once, by the flow that completed a connection: the session is spent. */
  claimedAt?: string;
}

const itemSchema = z.object({
  endUserId: z.string(),
  providers: z.array(z.enum(connectChoices)),
  returnTo: z.string().optional(),
  label: z.string().optional(),
  expiresAt: z.number(),
  claimedAt: z.string().optional(),
  version: z.number(),
});

/** Only the token's hash is a key: a leaked table row opens no page. */
export function connectTokenHash(token: string): string {
  return createHash('sha256').update(`connect-session:${token}`, 'utf8').digest('hex');
}

/** Why a session is not usable, for the page that says so. */
export type SessionRefusal = 'unknown' | 'expired' | 'used';

export type SessionRead = { ok: true; session: ConnectSession } | { ok: false; why: SessionRefusal };

function toSession(item: unknown, clock: Clock): SessionRead {
  const parsed = itemSchema.safeParse(item);
  if (!parsed.success) return { ok: false, why: 'unknown' };
  const { version: _v, ...session } = parsed.data;
  if (session.claimedAt !== undefined) return { ok: false, why: 'used' };
  // The ttl has second granularity and DynamoDB deletes late: the exact expiry decides.
  if (session.expiresAt <= clock.now()) return { ok: false, why: 'expired' };
  return { ok: true, session };
}

export async function saveConnectSession(store: Store, tokenHash: string, session: ConnectSession): Promise<void> {
  // A spent session is kept until its expiry (plus a day), so a second opening says "used", not "unknown".
  await store.put(
    { ...keys.connectSession(tokenHash), ...session, version: 1, ttl: ttlIn(session.expiresAt, 24 * 3600) },
    { ifNotExists: true },
  );
}

/** The session behind a token hash, when it is live (not expired, not spent). */
export async function readConnectSession(store: Store, clock: Clock, tokenHash: string): Promise<SessionRead> {
  return toSession(await store.get(keys.connectSession(tokenHash), { consistent: true }), clock);
}

/**
 * Spends the session: exactly one caller gets it (a write conditional on the version read),
 * every later or concurrent caller is refused, as is an expired session.
 */
export async function claimConnectSession(store: Store, clock: Clock, tokenHash: string): Promise<SessionRead> {
  const key = keys.connectSession(tokenHash);
  const item = await store.get<Item>(key, { consistent: true });
  const read = toSession(item, clock);
  if (!read.ok || !item) return read;
  const version = Number(item.version);
  try {
    await store.put({ ...item, ...key, claimedAt: new Date(clock.now()).toISOString(), version: version + 1 }, { ifVersion: version });
  } catch (e) {
    if (e instanceof ConditionFailedError) return { ok: false, why: 'used' };
    throw e;
  }
  return read;
}
