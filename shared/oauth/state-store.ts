import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';
import * as z from 'zod';
import { ConditionFailedError } from '../domain/errors';
import type { Provider } from '../domain/model';
import type { Clock, Item, Store } from '../ports';
import { keys, ttlIn } from '../store/table-design';
import { stateHash } from './pkce';

/** A state lives 10 minutes (docs/api.md, OAuth). */
export const stateLifetimeMs = 10 * 60 * 1000;

/** What the callback needs, kept server-side under the state's hash. */
export interface OAuthStateRecord {
  provider: Provider;
  redirectUri: string;
  /** The PKCE verifier never leaves the server, and is never at rest in clear (see `seal`). */
  codeVerifier: string;
  returnTo?: string;
  label?: string;
  /** Reconnect: the connection whose token the callback replaces. */
  connectionId?: string;
  expiresAt: number;
  /** Hash of the browser-binding cookie value set by `GET /oauth/{provider}/start` (start.ts). */
  bindingHash?: string;
  /** Scopes asked for beyond the provider's defaults (the collection service's `administration`, for webhooks). */
  extraScopes?: string[];
  /** Set on a GitHub App connect flow (the code host room's app/app-authorize.ts) only: how it reaches an installation. */
  app?: AppFlow;
  /** Started from a connect page: the hash of its session's token, spent when this flow makes the connection. */
  connectSession?: string;
}

/**
 * `install`: the App's installation page, whose return names the installation; `existing`: the
 * user authorization only, for an installation already there (`installationId`, or the only one
 * the user can see).
 */
export interface AppFlow {
  mode: 'install' | 'existing';
  installationId?: number;
}

const itemSchema = z.object({
  provider: z.enum(['github', 'contentsnare']),
  redirectUri: z.string(),
  sealedVerifier: z.string().min(1),
  returnTo: z.string().optional(),
  label: z.string().optional(),
  connectionId: z.string().optional(),
  expiresAt: z.number(),
  bindingHash: z.string().optional(),
  app: z.object({ mode: z.enum(['install', 'existing']), installationId: z.number().int().positive().optional() }).optional(),
  extraScopes: z.array(z.string()).optional(),
  connectSession: z.string().optional(),
  version: z.number().optional(),
});

/**
 * The verifier is stored encrypted (AES-256-GCM) under a key derived from the state, which
 * itself is never stored (only its hash is the key). Storage engines keep deleted values
 * for a while (the local table's log files, backups), so a verifier in clear would stay at
 * rest after the callback; sealed, it is useless without the state from the browser's URL.
 */
function keyFor(state: string): Buffer {
  return Buffer.from(hkdfSync('sha256', Buffer.from(state, 'utf8'), Buffer.alloc(0), 'oauth-state/pkce-verifier', 32));
}

function seal(state: string, verifier: string): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', keyFor(state), iv);
  const body = Buffer.concat([cipher.update(verifier, 'utf8'), cipher.final()]);
  return Buffer.concat([iv, body, cipher.getAuthTag()]).toString('base64url');
}

function unseal(state: string, sealed: string): string | undefined {
  try {
    const raw = Buffer.from(sealed, 'base64url');
    const decipher = createDecipheriv('aes-256-gcm', keyFor(state), raw.subarray(0, 12));
    decipher.setAuthTag(raw.subarray(raw.length - 16));
    return Buffer.concat([decipher.update(raw.subarray(12, raw.length - 16)), decipher.final()]).toString('utf8');
  } catch {
    return undefined;
  }
}

function toRecord(state: string, item: unknown, clock: Clock): OAuthStateRecord | undefined {
  const parsed = itemSchema.safeParse(item);
  if (!parsed.success) return undefined;
  // The ttl has second granularity and DynamoDB deletes late: check the exact expiry too.
  if (parsed.data.expiresAt <= clock.now()) return undefined;
  const codeVerifier = unseal(state, parsed.data.sealedVerifier);
  if (codeVerifier === undefined) return undefined;
  const { sealedVerifier: _s, version: _v, ...rest } = parsed.data;
  return { ...rest, codeVerifier };
}

export async function saveState(store: Store, state: string, record: OAuthStateRecord): Promise<void> {
  const { codeVerifier, ...rest } = record;
  await store.put(
    {
      ...keys.oauthState(stateHash(state)),
      ...rest,
      sealedVerifier: seal(state, codeVerifier),
      version: 1,
      ttl: ttlIn(record.expiresAt, 1),
    },
    // A collision of 256-bit random values would be a bug, not a case to handle.
    { ifNotExists: true },
  );
}

/** The live state without taking it (the start step), or undefined when unknown or expired. */
export async function readState(store: Store, clock: Clock, state: string): Promise<OAuthStateRecord | undefined> {
  return toRecord(state, await store.get(keys.oauthState(stateHash(state)), { consistent: true }), clock);
}

/**
 * Binds the state to one browser, once: the start step records the hash of the cookie it
 * sets. A second start of the same state (a leaked authorize URL opened elsewhere) is refused.
 */
export async function bindState(store: Store, clock: Clock, state: string, bindingHash: string): Promise<boolean> {
  const key = keys.oauthState(stateHash(state));
  const item = await store.get<Item>(key, { consistent: true });
  const parsed = itemSchema.safeParse(item);
  if (!item || !parsed.success || parsed.data.bindingHash !== undefined || parsed.data.expiresAt <= clock.now()) return false;
  try {
    await store.put({ ...item, ...key, bindingHash, version: (parsed.data.version ?? 1) + 1 }, { ifVersion: parsed.data.version ?? 1 });
    return true;
  } catch (e) {
    if (e instanceof ConditionFailedError) return false;
    throw e;
  }
}

/**
 * Takes the state out of the store: exactly one caller gets the record (conditional
 * delete), later or concurrent callers get undefined, as do expired states.
 */
export async function consumeState(store: Store, clock: Clock, state: string): Promise<OAuthStateRecord | undefined> {
  let item: Record<string, unknown> | undefined;
  try {
    item = await store.delete<Item>(keys.oauthState(stateHash(state)), { ifExists: true });
  } catch (e) {
    if (e instanceof ConditionFailedError) return undefined;
    throw e;
  }
  if (!item) return undefined;
  return toRecord(state, item, clock);
}
