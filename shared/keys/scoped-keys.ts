import * as z from 'zod';
import type { Caller } from '../domain/caller';
import { AppError, InvalidInputError } from '../domain/errors';
import { parseOrThrow } from '../domain/validation';
import { endUserIdSchema } from '../domain/end-user';
import { sameSecret } from '../domain/same-secret';
import type { Clock, Store } from '../ports';
import { ApiKeyRepo, type ApiKeyRecord } from '../store/api-key-repo';
import { ConnectionRepo } from '../store/connection-repo';
import { hashKeySecret, mintScopedKey, parseScopedKey } from './scoped-key-format';

/** Bounds of a key's row (one item) and of what it may open. */
export const scopedKeyBounds = {
  labelLength: 100,
  connections: 100,
  agents: 100,
  /** As long as a subscription's `agentId` may be. */
  agentIdLength: 256,
  /** A key lives at most a year; longer-lived access is what the platform key is for. */
  maxLifetimeDays: 366,
} as const;

const connectionId = z.string().regex(/^[A-Za-z0-9_-]{1,128}$/, 'must be a connection id');

export const createKeyInput = z
  .strictObject({
    label: z.string().trim().min(1, 'must not be empty').max(scopedKeyBounds.labelLength),
    connections: z
      .array(connectionId)
      .min(1, 'must list at least one connection')
      .max(scopedKeyBounds.connections)
      .transform((ids) => [...new Set(ids)])
      .optional(),
    endUserId: endUserIdSchema
      .optional()
      .describe('Every connection of this end user, present and future (those made through a connect page for them)'),
    agents: z
      .array(z.string().min(1, 'must not be empty').max(scopedKeyBounds.agentIdLength))
      .min(1, 'must list at least one agent (leave it out for every agent)')
      .max(scopedKeyBounds.agents)
      .transform((ids) => [...new Set(ids)])
      .optional()
      .describe(
        'The agents the key acts for: it sees and manages only their subscriptions and events. Absent: every agent of its connections',
      ),
    expiresAt: z.iso.datetime({ offset: true, message: 'must be an ISO 8601 time, e.g. 2027-01-31T00:00:00Z' }).optional(),
  })
  .refine((k) => k.connections !== undefined || k.endUserId !== undefined, {
    path: ['connections'],
    message: 'must list at least one connection, or give endUserId',
  });

export type CreatedKey = ApiKeyRecord & { key: string };

/**
 * `POST /keys`: a key that opens only the listed connections, or every connection of one end
 * user (`endUserId`, read again on each request), and, with `agents`, only those
 * agents' subscriptions and events). Every connection must exist (a typo would make a key that
 * opens nothing); the key is returned once and only its secret's hash is kept. The connections
 * are read again once the key is stored: a disconnect that ran in between (and so could not
 * see the key to take its connection off it) is caught here.
 */
export async function createScopedKey(deps: { store: Store; clock: Clock }, body: unknown): Promise<CreatedKey> {
  const input = parseOrThrow(createKeyInput, body);
  const now = deps.clock.now();
  if (input.expiresAt !== undefined) {
    const at = Date.parse(input.expiresAt);
    if (at <= now) throw new InvalidInputError([{ field: 'expiresAt', message: 'must be in the future' }]);
    if (at > now + scopedKeyBounds.maxLifetimeDays * 86_400_000) {
      throw new InvalidInputError([{ field: 'expiresAt', message: `must be within ${scopedKeyBounds.maxLifetimeDays} days` }]);
    }
  }
  const listed = input.connections ?? [];
  const connections = new ConnectionRepo(deps.store);
  const found = await Promise.all(listed.map((id) => connections.get(id)));
  const missing = listed.filter((_, i) => !found[i]);
  if (missing.length > 0) {
    throw new InvalidInputError(missing.map((id) => ({ field: 'connections', message: `no connection ${id}` })));
  }
  const minted = mintScopedKey();
  const record: ApiKeyRecord = {
    id: minted.id,
    label: input.label,
    connections: listed,
    ...(input.endUserId !== undefined ? { endUserId: input.endUserId } : {}),
    ...(input.agents !== undefined ? { agents: input.agents } : {}),
    createdAt: new Date(now).toISOString(),
    ...(input.expiresAt !== undefined ? { expiresAt: new Date(Date.parse(input.expiresAt)).toISOString() } : {}),
  };
  const repo = new ApiKeyRepo(deps.store);
  await repo.create(record, minted.secretHash);
  const after = await Promise.all(listed.map((id) => connections.get(id)));
  const gone = listed.filter((_, i) => !after[i]);
  if (gone.length > 0) {
    await repo.delete(record.id);
    throw new InvalidInputError(gone.map((id) => ({ field: 'connections', message: `no connection ${id}` })));
  }
  return { ...record, key: minted.key };
}

/** `DELETE /keys/{id}`: from the next request on, the key answers 401. */
export async function revokeScopedKey(store: Store, id: string): Promise<{ id: string; revoked: true }> {
  const deleted = await new ApiKeyRepo(store).delete(id);
  if (!deleted) throw new AppError('not_found', `No key ${id}`);
  return { id, revoked: true };
}

/**
 * The caller a presented bearer token stands for, when it is a live scoped key: one strongly
 * consistent read per request, no cache, so a revoke or an expiry takes effect at once on
 * every container. Undefined for anything else (unknown, revoked, expired, malformed).
 */
export async function resolveScopedKey(deps: { store: Store; clock: Clock }, presented: string): Promise<Caller | undefined> {
  const parsed = parseScopedKey(presented);
  if (!parsed) return undefined;
  const record = await new ApiKeyRepo(deps.store).getWithHash(parsed.id);
  if (!record || !sameSecret(hashKeySecret(parsed.secret), record.secretHash)) return undefined;
  if (record.expiresAt !== undefined && Date.parse(record.expiresAt) <= deps.clock.now()) return undefined;
  // An end user's key opens the connections they have now: one more consistent read, so one made a moment ago counts.
  const ofEndUser = record.endUserId === undefined ? [] : await new ConnectionRepo(deps.store).idsOfEndUser(record.endUserId);
  return {
    kind: 'scoped',
    keyId: record.id,
    connections: [...new Set([...record.connections, ...ofEndUser])],
    ...(record.agents !== undefined ? { agents: record.agents } : {}),
  };
}
