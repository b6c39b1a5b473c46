import type { Connection, Subscription } from '../../../domain/model';
import { connectionAfter, endpointAfter, seenBy, seenIn, subscriptionAfter, type Seen } from '../renames';
import type { TriggerId } from '../../../domain/triggers';
import type { Logger } from '../../../observability/logger';
import type { AppContext } from '../../../ports/app-context';
import { ConnectionRepo } from '../../../store/connection-repo';
import { EndpointRepo } from '../../../store/endpoint-repo';
import { SubscriptionRepo } from '../../../store/subscription-repo';
import type { DeliveryAnswer, Router } from '../../../intake/intake-source';
import { updateConnections } from '../app/lifecycle/update-connections';

type Routes = ReadonlyMap<TriggerId, readonly Subscription[]>;

/**
 * The code host's step between route and fan-out: a rename the product missed (or rows from
 * before ids were kept) is matched as the rows should read, and saved once the events are queued.
 */
export function followMissedRenames(ctx: Pick<AppContext, 'store' | 'clock'>): NonNullable<Router<unknown>['amend']> {
  return ({ event, payload, connections, routes }) => {
    const renames = noticeRenames(event, payload, connections, routes);
    return {
      connections: renames.connections,
      routes: renames.routes,
      save: (log) => saveNoticedRenames(ctx, log, renames.noticed, renames.seen),
    };
  };
}

/** What a delivery showed stale: the stored rows as they should now read (kept names, found ids). */
export interface NoticedRenames {
  connections: Connection[];
  subscriptions: Array<{ before: Subscription; after: Subscription }>;
  /**
   * Connections whose account or repository was renamed (not only an id found), with the
   * rename stated: all their subscriptions and hooks follow it, not only those routed here.
   */
  renamed: Array<{ connection: Connection; seen: Seen }>;
}

/**
 * Renames the product missed (no rename event reached it), noticed from the ids of an ordinary
 * delivery, and ids that rows from before ids were kept lack: the tenant's connections and the
 * routed subscriptions as they should read. Pure. The caller fans out to the rows as they should
 * read (so a subscription named by an account's old login still matches), then saves them.
 */
export function noticeRenames(
  event: string,
  payload: unknown,
  connections: readonly Connection[],
  routes: Routes,
): { seen: Seen; noticed: NoticedRenames; connections: Connection[]; routes: Routes } {
  const seen = seenIn(event, payload);
  const noticed: NoticedRenames = { connections: [], subscriptions: [], renamed: [] };
  if (seen.repository === undefined && seen.accounts.length === 0) return { seen, noticed, connections: [...connections], routes };
  const byId = new Map<string, Seen>();
  const current = connections.map((c) => {
    byId.set(c.id, seenBy(c, seen));
    const after = connectionAfter(c, seen);
    if (after) noticed.connections.push(after);
    return after ?? c;
  });
  const out = new Map<TriggerId, Subscription[]>();
  for (const [trigger, subs] of routes) {
    out.set(
      trigger,
      subs.map((sub) => {
        const after = subscriptionAfter(sub, byId.get(sub.connectionId) ?? seen);
        if (after) noticed.subscriptions.push({ before: sub, after });
        return after ?? sub;
      }),
    );
  }
  for (const c of connections) {
    const mine = byId.get(c.id) ?? seen;
    const formerName = formerNameOf(c, noticed.subscriptions, seen);
    if (formerName === undefined && !mine.accounts.some((a) => a.formerLogin !== undefined)) continue;
    const repository = seen.repository && formerName !== undefined ? { ...seen.repository, formerName } : seen.repository;
    noticed.renamed.push({ connection: c, seen: { ...mine, ...(repository ? { repository } : {}) } });
  }
  return { seen, noticed, connections: current, routes: out };
}

/** The name the delivery's repository had for this connection, when kept under its id (allow-list or subscription) by another name. */
function formerNameOf(c: Connection, subs: NoticedRenames['subscriptions'], seen: Seen): string | undefined {
  const r = seen.repository;
  if (r === undefined) return undefined;
  const lower = r.fullName.toLowerCase();
  const listed = c.repositories.find((name) => c.repositoryIds?.[name.toLowerCase()] === r.id && name.toLowerCase() !== lower);
  if (listed !== undefined) return listed;
  return subs.find(
    (s) =>
      s.before.connectionId === c.id &&
      s.before.repositoryId === r.id &&
      s.before.repository !== undefined &&
      s.before.repository.toLowerCase() !== lower,
  )?.before.repository;
}

/** Saves what `noticeRenames` found. Never fails the delivery: a row not saved is noticed again by the next one. */
export async function saveNoticedRenames(
  ctx: Pick<AppContext, 'store' | 'clock'>,
  log: Logger,
  noticed: NoticedRenames,
  seen: Seen,
): Promise<void> {
  if (noticed.connections.length === 0 && noticed.subscriptions.length === 0) return;
  try {
    const renamed = new Set(noticed.renamed.map((r) => r.connection.id));
    for (const r of noticed.renamed) await followRename(ctx, [r.connection], r.seen);
    const rest = noticed.connections.filter((c) => !renamed.has(c.id));
    await updateConnections(ctx, rest, (c) => connectionAfter(c, seen));
    const subs = new SubscriptionRepo(ctx.store);
    const endpoints = new EndpointRepo(ctx.store);
    for (const { before, after } of noticed.subscriptions) {
      if (renamed.has(after.connectionId)) continue;
      await subs.replace(after);
      if (after.endpointId === undefined || before.repository === undefined || after.repository === before.repository) continue;
      const moved: Seen = {
        repository: { id: after.repositoryId ?? 0, fullName: after.repository ?? '', formerName: before.repository },
        accounts: [],
      };
      await endpoints.update(after.endpointId, (e) => endpointAfter(e, moved) ?? e);
    }
    log.info('stored names and ids brought up to date from a delivery', {
      renamed: noticed.renamed.length,
      connections: noticed.connections.length,
      subscriptions: noticed.subscriptions.length,
    });
  } catch (e) {
    log.warn('could not bring stored names up to date; the next delivery tries again', { error: e });
  }
}

/**
 * A rename the code host announces (`repository` `renamed` / `transferred`, the App's
 * `installation_target` `renamed`): every connection of the delivery's tenant, all their
 * subscriptions and their hooks' targets take the new name (and the ids it names). Answered
 * 200: the delivery reaches no trigger. Idempotent, so a redelivery changes nothing more.
 */
export async function onRenameEvent(
  ctx: Pick<AppContext, 'store' | 'clock' | 'metrics'>,
  log: Logger,
  event: string,
  connections: readonly Connection[],
  payload: unknown,
): Promise<DeliveryAnswer> {
  const renamed = await followRename(ctx, connections, seenIn(event, payload));
  ctx.metrics.count('webhook_rename_followed', 1, { event });
  log.info('rename followed', { event, ...renamed });
  return { status: 200, body: { ok: true, renamed } };
}

/** Every connection, all their subscriptions and their hooks' targets after `seen` (a rename stated or learned by id). */
export async function followRename(
  ctx: Pick<AppContext, 'store' | 'clock'>,
  connections: readonly Connection[],
  seen: Seen,
): Promise<{ connections: number; subscriptions: number }> {
  const changed = await updateConnections(ctx, connections, (c) => connectionAfter(c, seen));
  const subs = new SubscriptionRepo(ctx.store);
  const endpoints = new EndpointRepo(ctx.store);
  let subscriptions = 0;
  for (const c of connections) {
    const mine = seenBy(c, seen);
    for (const sub of await subs.list(c.id)) {
      const after = subscriptionAfter(sub, mine);
      if (after && (await subs.replace(after))) subscriptions++;
    }
    for (const e of await endpoints.list(c.id))
      if (endpointAfter(e, mine)) await endpoints.update(e.id, (x) => endpointAfter(x, mine) ?? x);
  }
  return { connections: changed, subscriptions };
}

/** `repository` `renamed` / `transferred` and `installation_target` `renamed`: the deliveries `onRenameEvent` answers. */
export function isRenameEvent(event: string, payload: unknown): boolean {
  const action = typeof payload === 'object' && payload !== null ? (payload as { action?: unknown }).action : undefined;
  return (
    (event === 'repository' && (action === 'renamed' || action === 'transferred')) ||
    (event === 'installation_target' && action === 'renamed')
  );
}

/** The connections of one App installation (the App's rename deliveries reach all of them). */
export function installationConnections(ctx: Pick<AppContext, 'store'>, installationId: number): Promise<Connection[]> {
  return new ConnectionRepo(ctx.store).byInstallation(installationId);
}
