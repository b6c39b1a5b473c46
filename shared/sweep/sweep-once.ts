import type { AppContext } from '../ports/app-context';
import { codeHostAccess } from '../github/code-host-access';
import { ConnectionRepo } from '../store/connection-repo';
import type { Endpoint } from '../domain/model';
import type { Store } from '../ports';
import { keys } from '../store/table-design';
import { EndpointRepo } from '../store/endpoint-repo';
import { listHookDeliveries, requestRedelivery, type HookDelivery } from './hook-deliveries';

export interface SweepReport {
  endpoints: number;
  /** Deliveries (by guid) that never succeeded and that we had not processed. */
  found: number;
  redelivered: number;
  failed: number;
}

/** Attempts already asked for are remembered (bounded) so one failure is never asked twice. */
const maxAsked = 1000;
/** The code host keeps deliveries a few days; older ones cannot be redelivered anyway. */
const maxAgeMs = 3 * 24 * 3600 * 1000;
/**
 * How many redeliveries of one guid the sweep asks for: a redelivery that fails again (the
 * intake died during it too) is asked for again, but a delivery that always fails (a body
 * over the entry point's limit) is not asked for forever.
 */
export const maxRedeliveriesPerGuid = 3;

interface SweepCursor {
  /** `guid@attemptId` per redelivery asked for; a bare guid (older rows) stands for all of its attempts. */
  asked: string[];
  lastSweepAt: string;
}

function ok(status: number | undefined): boolean {
  return status !== undefined && status >= 200 && status < 300;
}

interface FailedGuid {
  /** The newest attempt: the one to redeliver. */
  newest: HookDelivery;
  /** How many of its attempts were redeliveries. */
  redeliveries: number;
}

/** Per guid, the newest attempt, unless any attempt of that guid succeeded. */
function failedGuids(deliveries: HookDelivery[], nowMs: number): Map<string, FailedGuid> {
  const succeeded = new Set(deliveries.filter((d) => ok(d.status_code)).map((d) => d.guid));
  const out = new Map<string, FailedGuid>();
  for (const d of deliveries) {
    if (succeeded.has(d.guid)) continue;
    const at = d.delivered_at ? Date.parse(d.delivered_at) : nowMs;
    if (nowMs - at > maxAgeMs) continue;
    const prev = out.get(d.guid) ?? { newest: d, redeliveries: 0 };
    out.set(d.guid, { newest: d.id > prev.newest.id ? d : prev.newest, redeliveries: prev.redeliveries + (d.redelivery ? 1 : 0) });
  }
  return out;
}

/**
 * What our claim of the delivery id says: processed (`done`, or a row from before claims
 * had a state), being processed (a live lease: look again next sweep), or nothing (never
 * seen, released, or the lease of an attempt that died lapsed: redeliver).
 */
async function claimState(store: Store, endpointId: string, guid: string): Promise<'done' | 'in_progress' | 'none'> {
  const claim = await store.get(keys.deliveryClaim(endpointId, guid));
  if (!claim) return 'none';
  return claim.state === 'in_progress' ? 'in_progress' : 'done';
}

async function sweepEndpoint(ctx: AppContext, store: Store, endpoint: Endpoint, report: SweepReport): Promise<void> {
  const connection = await new ConnectionRepo(store).get(endpoint.connectionId);
  if (connection?.status !== 'connected' || endpoint.hookId === undefined) return;
  const access = await codeHostAccess(ctx, connection);
  const cursorKey = keys.sweepCursor(endpoint.id);
  const cursor = (await store.get<{ pk: string; sk: string } & SweepCursor>(cursorKey)) ?? { asked: [] as string[] };
  const asked = new Set(cursor.asked);
  const deliveries = await listHookDeliveries(ctx.fetch, access, endpoint);
  for (const [guid, { newest, redeliveries }] of failedGuids(deliveries, ctx.clock.now())) {
    // Asked for this attempt already (its redelivery is on its way), or for the guid in an older row.
    if (asked.has(guid) || asked.has(`${guid}@${newest.id}`)) continue;
    if (redeliveries >= maxRedeliveriesPerGuid) continue;
    // Done by us means we processed it (the code host may still have seen a timeout); in
    // progress means an attempt is running now.
    if ((await claimState(store, endpoint.id, guid)) !== 'none') continue;
    report.found++;
    try {
      await requestRedelivery(ctx.fetch, access, endpoint, newest.id);
      asked.add(`${guid}@${newest.id}`);
      report.redelivered++;
      ctx.logger.info('redelivery requested', {
        endpointId: endpoint.id,
        deliveryId: guid,
        event: newest.event,
        statusCode: newest.status_code,
      });
    } catch (e) {
      report.failed++;
      ctx.logger.warn('redelivery request failed', { endpointId: endpoint.id, deliveryId: guid, error: e });
    }
  }
  await store.put({ ...cursorKey, asked: [...asked].slice(-maxAsked), lastSweepAt: new Date(ctx.clock.now()).toISOString() });
}

/**
 * One redelivery sweep: for each hook, the recent deliveries that never succeeded and
 * that we did not process are asked for again, once per failed attempt and at most
 * `maxRedeliveriesPerGuid` times, so a delivery lost while the intake was down (or died
 * during it) still starts its agents (RELIABILITY 15). Failures are counted, not thrown.
 */
export async function sweepOnce(ctx: AppContext): Promise<SweepReport> {
  const endpoints = await new EndpointRepo(ctx.store).list();
  const report: SweepReport = { endpoints: 0, found: 0, redelivered: 0, failed: 0 };
  for (const endpoint of endpoints) {
    if (endpoint.hookId === undefined) continue;
    report.endpoints++;
    try {
      await sweepEndpoint(ctx, ctx.store, endpoint, report);
    } catch (e) {
      report.failed++;
      ctx.logger.warn('sweeping a hook failed', { endpointId: endpoint.id, hookId: endpoint.hookId, error: e });
    }
  }
  ctx.metrics.count('sweep_redelivered', report.redelivered);
  if (report.failed > 0) ctx.metrics.count('sweep_failed', report.failed);
  ctx.logger.info('redelivery sweep done', { ...report });
  return report;
}
