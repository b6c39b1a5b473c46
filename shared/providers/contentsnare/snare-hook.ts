import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { Connection } from '../../domain/model';
import { snareEventName, type SnareTriggerId } from '../../domain/triggers';
import type { AppContext } from '../../ports/app-context';
import type { Store } from '../../ports';
import { readListing, shardOf } from '../../store/sharded-listing';
import { keys, listings } from '../../store/table-design';
import { SubscriptionRepo } from '../../store/subscription-repo';
import { snareClientFor } from './connection-client';
import { assertWebhookScope, createWebhook, deleteWebhook, updateWebhook } from './webhook-api';

/**
 * One webhook per collection-service connection, carrying the union of the events its
 * subscriptions need. The service signs nothing, so the URL carries an unguessable
 * per-connection token (256 bits): the record keeps only its SHA-256 (what the intake
 * compares against), the token itself is a secret (needed again for every `PUT`, whose
 * `url` the reference marks required).
 */

export interface SnareHook {
  connectionId: string;
  /** The webhook's id at the service, once registered. */
  hookId?: string;
  /** The event names registered (sorted). */
  events: string[];
  /** SHA-256 (hex) of the URL token. */
  tokenSha256: string;
  createdAt: string;
}

type SnareHookItem = SnareHook & { pk: string; sk: string; gsi2pk: string; gsi2sk: string };

/** The route id of a connection's collection-service subscriptions (their gsi1 `ROUTE#` partitions). */
export function snareRouteId(connectionId: string): string {
  return `snare_${connectionId}`;
}

/** Where the URL token is kept (the intake never reads it: it compares hashes). */
export function snareHookTokenName(connectionId: string): string {
  return `endpoints/${snareRouteId(connectionId)}/token`;
}

export function snareHookUrl(ctx: Pick<AppContext, 'config'>, connectionId: string, token: string): string {
  return `${ctx.config.publicUrl}/webhooks/contentsnare/${encodeURIComponent(connectionId)}/${token}`;
}

const sha256 = (s: string) => createHash('sha256').update(s).digest();

/** Whether `given` is the hook's token: SHA-256 of both, compared in constant time (no early exit on the first differing byte). */
export function tokenMatches(hook: Pick<SnareHook, 'tokenSha256'>, given: string): boolean {
  const want = Buffer.from(hook.tokenSha256, 'hex');
  const got = sha256(given);
  return want.length === got.length && timingSafeEqual(want, got);
}

export class SnareHookRepo {
  constructor(private readonly store: Store) {}

  async get(connectionId: string): Promise<SnareHook | undefined> {
    const item = await this.store.get<SnareHookItem>(keys.snareHook(connectionId), { consistent: true });
    return item ? fromItem(item) : undefined;
  }

  async put(hook: SnareHook, opts: { ifNotExists?: boolean } = {}): Promise<void> {
    const item: SnareHookItem = {
      ...keys.snareHook(hook.connectionId),
      gsi2pk: shardOf(listings.snareHooks, hook.connectionId),
      gsi2sk: hook.connectionId,
      ...hook,
    };
    await this.store.put(item, opts);
  }

  async delete(connectionId: string): Promise<void> {
    await this.store.delete(keys.snareHook(connectionId));
  }

  /** Every connection's hook (the recovery check), the first `limit` by connection id. */
  async list(limit = 1000): Promise<SnareHook[]> {
    return (await readListing<SnareHookItem>(this.store, listings.snareHooks, { limit })).map(fromItem);
  }
}

function fromItem(item: SnareHookItem): SnareHook {
  const { pk: _pk, sk: _sk, gsi2pk: _a, gsi2sk: _b, ...hook } = item as SnareHookItem & Record<string, unknown>;
  return hook as SnareHook;
}

/** The events the connection's collection-service subscriptions need, plus `adding` (sorted, no repeats). */
async function eventsNeeded(ctx: AppContext, connectionId: string, adding?: SnareTriggerId): Promise<string[]> {
  const subs = await new SubscriptionRepo(ctx.store).list(connectionId);
  const triggers = subs.filter((s) => s.endpointId === snareRouteId(connectionId)).map((s) => s.trigger as SnareTriggerId);
  if (adding) triggers.push(adding);
  return [...new Set(triggers.map(snareEventName))].sort();
}

const sameSet = (a: readonly string[], b: readonly string[]) => a.length === b.length && a.every((x) => b.includes(x));

/** The lease under which a connection's hook and its subscriptions change together. */
export function snareHookLease(connectionId: string): string {
  return `snarehook#${connectionId}`;
}

/**
 * Makes sure the connection's webhook carries the events of its subscriptions plus
 * `trigger`: registers it (`POST`) the first time, else changes it (`PUT`, with the url)
 * when the union grew; a hook the service lost is registered again. Call it under
 * `snareHookLease`. Order: token secret, record, service, hook id on the record, so a crash
 * midway leaves at worst a hook whose deliveries reach no subscription.
 * Throws `forbidden` naming the scope and role to grant when the service refuses.
 */
export async function ensureSnareHook(ctx: AppContext, connection: Connection, trigger: SnareTriggerId): Promise<SnareHook> {
  assertWebhookScope(connection);
  const repo = new SnareHookRepo(ctx.store);
  const tokenName = snareHookTokenName(connection.id);
  let hook = await repo.get(connection.id);
  let token = await ctx.secrets.get(tokenName);
  if (token === undefined || !hook || !tokenMatches(hook, token)) {
    token = token ?? randomBytes(32).toString('base64url');
    await ctx.secrets.put(tokenName, token);
    hook = {
      connectionId: connection.id,
      ...(hook?.hookId !== undefined ? { hookId: hook.hookId } : {}),
      // A changed token must reach the service: the empty list forces a PUT below.
      events: hook && tokenMatches(hook, token) ? hook.events : [],
      tokenSha256: sha256(token).toString('hex'),
      createdAt: hook?.createdAt ?? new Date(ctx.clock.now()).toISOString(),
    };
    await repo.put(hook);
  }
  const events = await eventsNeeded(ctx, connection.id, trigger);
  if (hook.hookId !== undefined && sameSet(events, hook.events)) return hook;
  const client = snareClientFor(ctx, connection);
  const spec = { url: snareHookUrl(ctx, connection.id, token), events };
  let hookId = hook.hookId;
  if (hookId === undefined || !(await updateWebhook(client, connection, hookId, spec))) {
    hookId = await createWebhook(client, connection, spec);
  }
  const saved: SnareHook = { ...hook, hookId, events };
  await repo.put(saved);
  ctx.logger.info('collection-service webhook registered', { connectionId: connection.id, hookId, events });
  return saved;
}

export interface SnareReleaseOutcome {
  hook: 'kept' | 'updated' | 'deleted' | 'none';
  warning?: string;
}

/**
 * After a subscription left: removes the webhook (then the record and the token) when no
 * subscription of the connection needs it, else narrows its events with a `PUT`. What the
 * service refused is reported, not thrown: the subscription is gone either way, and the
 * record stays so that a later change finishes the job. Call it under `snareHookLease`.
 */
export async function releaseSnareHook(
  ctx: AppContext,
  connection: Connection | undefined,
  connectionId: string,
): Promise<SnareReleaseOutcome> {
  const repo = new SnareHookRepo(ctx.store);
  const hook = await repo.get(connectionId);
  if (!hook) return { hook: 'none' };
  const events = await eventsNeeded(ctx, connectionId);
  try {
    if (events.length === 0) {
      if (hook.hookId !== undefined) {
        if (!connection) throw new Error('the connection is gone');
        await deleteWebhook(snareClientFor(ctx, connection), connection, hook.hookId);
      }
      await repo.delete(connectionId);
      await ctx.secrets.delete(snareHookTokenName(connectionId));
      return { hook: hook.hookId === undefined ? 'none' : 'deleted' };
    }
    if (hook.hookId === undefined || sameSet(events, hook.events)) return { hook: 'kept' };
    if (!connection) throw new Error('the connection is gone');
    const token = await ctx.secrets.get(snareHookTokenName(connectionId));
    if (token === undefined) throw new Error('the hook token is missing');
    const client = snareClientFor(ctx, connection);
    const spec = { url: snareHookUrl(ctx, connectionId, token), events };
    const hookId = (await updateWebhook(client, connection, hook.hookId, spec))
      ? hook.hookId
      : await createWebhook(client, connection, spec);
    await repo.put({ ...hook, hookId, events });
    return { hook: 'updated' };
  } catch (e) {
    ctx.logger.warn('collection-service webhook cleanup failed', { connectionId, hookId: hook.hookId, error: e });
    const what = events.length === 0 ? 'delete' : 'narrow the events of';
    return { hook: 'kept', warning: `Could not ${what} the Content Snare webhook ${hook.hookId ?? ''}: ${(e as Error).message}` };
  }
}
