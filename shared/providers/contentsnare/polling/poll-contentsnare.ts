import * as z from 'zod';
import { triggerCatalogOf } from '../../../ports/provider-contract';
import { snareClientFor } from '../connection-client';
import { readBack } from '../read-back';
import { SnareHookRepo, snareRouteId, type SnareHook } from '../snare-hook';
import { parseAnswer } from '../schemas';
import { recordObservation } from '../subject-memory';
import { buildTriggerEvents, enqueueEvents, subscriptionsByRoute } from '../../../dispatch/fan-out';
import { snareTriggerRows } from '../triggers/rows';
import { changeIdentity, snareMappedEvent } from '../mapping/snare-events';
import type { Connection, Subscription } from '../../../domain/model';
import { snareTriggerNames, type SnareTriggerId, type SnareTriggerName } from '../../../domain/triggers';
import { finishWith, withClaim } from '../../../store/with-claim';
import { createHash } from 'node:crypto';
import type { AppContext } from '../../../ports/app-context';
import { ConnectionRepo } from '../../../store/connection-repo';
import { keys } from '../../../store/table-design';

/**
 * Recovery of collection-service deliveries that never arrived (the service documents no
 * retries): each poll round, per connection with a webhook, the requests changed since the
 * last round are listed newest first and read back, and each recoverable trigger whose level
 * holds is announced through the same claim as the intake's (event, record, episode; see
 * shared/domain/mapping/snare-events.ts). What a delivery already announced finds its claim
 * done and is not announced again. Bounded per connection and round: a few list pages and
 * `maxReadBacks` read-backs, within the account's shared read limit; the rest waits for the
 * next round (the cursor only moves past what was read back).
 */

export interface SnareRecoveryOptions {
  /** Requests read back per connection and round. */
  maxReadBacks?: number;
  /** List pages read per connection and round. */
  maxPages?: number;
  pageSize?: number;
}

const defaults: Required<SnareRecoveryOptions> = { maxReadBacks: 10, maxPages: 3, pageSize: 50 };
/** Within a round, a connection whose read limit is busy (tool steps, deliveries) waits for the next round. */
const maxWaitMs = 5000;

/** As the intake's delivery claims: a 15 s lease, kept 7 days once done. */
const claimLeaseSeconds = 15;
const claimDoneSeconds = 7 * 24 * 3600;

const recoverable = snareTriggerNames.filter((n) => snareTriggerRows[n].recoverable);

const listItem = z.looseObject({ id: z.union([z.string(), z.number()]).transform(String), updated_at: z.string().optional() });
const listAnswer = z.looseObject({ results: z.array(listItem) });

interface Cursor {
  pk: string;
  sk: string;
  /** The newest `updated_at` read back so far. */
  since: string;
}

export async function recoverMissedSnareDeliveries(ctx: AppContext, options: SnareRecoveryOptions = {}): Promise<number> {
  const o = { ...defaults, ...options };
  let announced = 0;
  for (const hook of await new SnareHookRepo(ctx.store).list()) {
    try {
      announced += await recoverOne(ctx, hook, o);
    } catch (e) {
      ctx.logger.warn('collection-service recovery check failed for a connection; the next round tries again', {
        connectionId: hook.connectionId,
        error: e,
      });
    }
  }
  if (announced > 0) ctx.metrics.count('contentsnare_recovered', announced);
  return announced;
}

async function recoverOne(ctx: AppContext, hook: SnareHook, o: Required<SnareRecoveryOptions>): Promise<number> {
  const connection = await new ConnectionRepo(ctx.store).get(hook.connectionId);
  if (connection?.status !== 'connected') return 0;
  const routes = await subscriptionsByRoute(
    ctx,
    recoverable.map((n) => `contentsnare.${n}` as SnareTriggerId),
    (t) => keys.webhookRoute(snareRouteId(connection.id), t),
  );
  const subs = [...routes.values()].flat();
  if (subs.length === 0) return 0;
  const cursorKey = keys.snareRecoveryCursor(connection.id);
  const cursor = await ctx.store.get<Cursor>(cursorKey, { consistent: true });
  // The first round starts at the oldest subscription: what changed before it is not announced.
  const since = cursor?.since ?? subs.map((s) => s.createdAt).sort()[0] ?? new Date(ctx.clock.now()).toISOString();
  const client = snareClientFor(ctx, connection, { maxWaitMs });
  const changed: Array<{ id: string; updatedAt: string }> = [];
  for (let page = 0; page < o.maxPages; page++) {
    const res = await client.request({
      method: 'GET',
      endpoint: '/requests',
      query: { sort_by: 'updated_at', sort_direction: 'desc', limit: String(o.pageSize), offset: String(page * o.pageSize) },
    });
    const items = parseAnswer(listAnswer, res.data, 'GET /requests').results;
    const newer = items.filter((i) => i.updated_at !== undefined && i.updated_at > since);
    changed.push(...newer.map((i) => ({ id: i.id, updatedAt: i.updated_at as string })));
    // Newest first: a page with anything older than the cursor is the last one needed.
    if (items.length < o.pageSize || newer.length < items.length) break;
  }
  // Oldest first, so that the cursor can move past exactly what was read back.
  const todo = changed.sort((a, b) => a.updatedAt.localeCompare(b.updatedAt)).slice(0, o.maxReadBacks);
  let announced = 0;
  let reached = since;
  for (const item of todo) {
    announced += await recoverRequest(ctx, connection, client, item.id, routes);
    if (item.updatedAt > reached) reached = item.updatedAt;
  }
  if (reached !== since) await ctx.store.put({ ...cursorKey, since: reached });
  return announced;
}

async function recoverRequest(
  ctx: AppContext,
  connection: Connection,
  client: ReturnType<typeof snareClientFor>,
  requestId: string,
  routes: ReadonlyMap<string, readonly Subscription[]>,
): Promise<number> {
  const seen = await readBack(client, { event: 'request_completed', subject: 'request', id: requestId });
  if (seen.kind === 'unseen' || seen.readBack.subject !== 'request') return 0;
  const rb = seen.readBack;
  const episodes = await recordObservation(ctx, connection.id, rb, undefined);
  const updatedAt = typeof rb.request.updated_at === 'string' ? rb.request.updated_at : '';
  let announced = 0;
  for (const name of recoverable) {
    const episode = episodes[name as SnareTriggerName];
    const trigger = `contentsnare.${name}` as SnareTriggerId;
    // Only subscriptions older than the change: a request completed before the subscription is not news to it.
    const subs = (routes.get(trigger) ?? []).filter((s) => s.createdAt <= updatedAt);
    if (!episode || subs.length === 0) continue;
    const deliveryId = changeIdentity(name, rb, episode);
    // The very row the intake claims for this change (delivery-claims.ts: the claim is keyed on the SHA-256 of the bytes it is given, here the change's identity).
    const key = keys.deliveryBodyClaim(snareRouteId(connection.id), createHash('sha256').update(deliveryId).digest('hex'));
    const attrs = { endpointId: snareRouteId(connection.id), deliveryId, event: name };
    // Done: announced already (by a delivery or an earlier round). Busy: a delivery of it is being processed now.
    const run = await withClaim(ctx, { key, leaseSeconds: claimLeaseSeconds, attrs, doneTtlSeconds: claimDoneSeconds }, async () => {
      const events = buildTriggerEvents({
        catalog: triggerCatalogOf(ctx.providers),
        connection,
        subscriptions: new Map([[trigger, subs]]),
        mapped: [snareMappedEvent(name, rb)],
        deliveryId,
        occurredAt: new Date(ctx.clock.now()).toISOString(),
      });
      await enqueueEvents(ctx, events);
      return finishWith(events.length);
    });
    if (run.kind !== 'ran') continue;
    announced += run.value;
    ctx.logger.info('collection-service change recovered: its delivery never arrived', {
      connectionId: connection.id,
      trigger,
      requestId,
    });
  }
  return announced;
}
