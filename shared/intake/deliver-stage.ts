import type { Subscription, TriggerEvent } from '../domain/model';
import { triggerCatalogOf } from '../ports/provider-contract';
import type { TriggerId } from '../domain/triggers';
import { buildTriggerEvents, queueEvents } from '../dispatch/fan-out';
import type { Logger } from '../observability/logger';
import type { AppContext } from '../ports/app-context';
import { type ClaimEnd, finishWith, giveBack } from '../store/with-claim';
import { type DeliveryClaimOutcome, withDeliveryClaim } from './delivery-claims';
import type { ClaimIdentity, DeliveryAnswer, DeliveryHeaders, IntakeRequest, Router, RoutedRows, Routes, Tenant } from './intake-source';
import type { ConnectionMapped } from './map-stage';

/** What the claim, route, fan-out and done steps ended with: an answer, or stopped because the answer was already given. */
export type DeliverOutcome = { kind: 'answered'; answer: DeliveryAnswer } | { kind: 'abandoned' };

export interface DeliverInput<V> {
  req: IntakeRequest;
  headers: DeliveryHeaders;
  verified: V;
  tenant: Tenant;
  mapped: ConnectionMapped[];
  router: Router<V>;
  busyWaitMs: number;
  /** The claim's identity when the source names it (else the delivery's id, event and body). */
  identity?: ClaimIdentity;
  /** The parsed body, for the router's step before fan-out (`amend`). */
  payload?: unknown;
}

/**
 * The claim of the signed body (delivery-claims.ts), the route, fan-out and one enqueue, then
 * the claim and the delivery id marked done. Any failure after the claim gives it back (fenced)
 * and is passed on, so that a redelivery is processed rather than dropped as a duplicate; an
 * attempt that dies leaves a claim whose short lease lapses, with the same effect. When
 * `signal` aborts (the answer was given without it), the claim is given back at once and the
 * steps stop at the next one.
 */
export async function deliverStage<V>(ctx: AppContext, log: Logger, input: DeliverInput<V>, signal: AbortSignal): Promise<DeliverOutcome> {
  const { req, headers, tenant, mapped } = input;
  // The route Query does not depend on the claim: run both at once (one round trip of latency, not two).
  const triggers = [...new Set(mapped.flatMap((c) => c.mapped.map((m) => m.trigger)))];
  const routes = input.router.subscriptions(input.verified, tenant, triggers);
  routes.catch(() => undefined);
  const identity = input.identity
    ? { routeId: tenant.routeId, ...input.identity }
    : { routeId: tenant.routeId, deliveryId: headers.deliveryId, event: headers.event, body: req.body };
  const run = await withDeliveryClaim(
    ctx,
    log,
    identity,
    {
      busyWaitMs: input.busyWaitMs,
      signal,
      abortGivesBack: true,
      // The events are queued whatever happens to the marks, so a failed mark is logged, not
      // answered 5xx (its redelivery would only queue copies that dispatch drops by event id).
      onFinishFailed: (e) => log.error('could not mark the delivery done; its claim lapses with its lease', { error: e }),
    },
    () => routeAndEnqueue(ctx, input, identity.deliveryId, routes, signal),
  );
  if (run.kind === 'not_claimed') return { kind: 'answered', answer: notClaimed(ctx, log, run.outcome) };
  if (run.kind === 'aborted') {
    // Work that still ends after the answer left finishes as it would have.
    void run.late.then((queued) => queued && accepted(ctx, log, triggers, queued));
    return { kind: 'abandoned' };
  }
  return run.value ? { kind: 'answered', answer: await accepted(ctx, log, triggers, run.value) } : { kind: 'abandoned' };
}

/** What was queued: the events, and what the router's step before fan-out keeps once they are. */
type Queued = { events: readonly TriggerEvent[]; mapped: number; save?: RoutedRows['save'] };

/**
 * Under the claim: the route, fan-out, one enqueue. Done only once the events are queued (a
 * crash before leaves a lease that lapses); their history rides in the done marks' write (a
 * lost one is written anew by the dispatch). Stopped (the claim given back) when the answer
 * is due before the enqueue.
 */
async function routeAndEnqueue<V>(
  ctx: AppContext,
  input: DeliverInput<V>,
  deliveryId: string,
  routes: Promise<Routes>,
  signal: AbortSignal,
): Promise<ClaimEnd<Queued | undefined>> {
  if (signal.aborted) return giveBack(undefined);
  const routed = await routes;
  // The source's step on the routed rows (between route and fan-out): matched as the rows should read, saved after.
  const amended = input.router.amend?.({
    event: input.headers.event,
    payload: input.payload,
    connections: input.tenant.connections,
    routes: routed,
  });
  const current = new Map((amended?.connections ?? []).map((c) => [c.id, c]));
  const events = fanOut(
    ctx,
    input.mapped.map((m) => ({ ...m, connection: current.get(m.connection.id) ?? m.connection })),
    amended?.routes ?? routed,
    deliveryId,
  );
  if (signal.aborted) return giveBack(undefined);
  const history = await queueEvents(ctx, events);
  return finishWith({ events, mapped: input.mapped.length, ...(amended ? { save: amended.save } : {}) }, history);
}

async function accepted(ctx: AppContext, log: Logger, triggers: readonly TriggerId[], queued: Queued): Promise<DeliveryAnswer> {
  await queued.save?.(log);
  ctx.metrics.count('webhook_accepted');
  ctx.metrics.count('trigger_events_enqueued', queued.events.length);
  log.info('webhook delivery accepted', { triggers, connections: queued.mapped, enqueued: queued.events.length });
  return { status: 202, body: { ok: true, accepted: queued.events.length } };
}

/**
 * Each connection's events to its own subscriptions: the routes are split by connection
 * first, so a delivery reaching many connections of one App installation costs one pass
 * over the routed subscriptions, not one per connection.
 */
function fanOut(ctx: AppContext, mapped: readonly ConnectionMapped[], subscriptions: Routes, deliveryId: string): TriggerEvent[] {
  const byConnection = new Map<string, Map<TriggerId, Subscription[]>>();
  for (const [trigger, subs] of subscriptions) {
    for (const sub of subs) {
      let routes = byConnection.get(sub.connectionId);
      if (!routes) {
        routes = new Map();
        byConnection.set(sub.connectionId, routes);
      }
      const list = routes.get(trigger);
      if (list) list.push(sub);
      else routes.set(trigger, [sub]);
    }
  }
  const occurredAt = new Date(ctx.clock.now()).toISOString();
  return mapped.flatMap(({ connection, mapped: events }) => {
    const routes = byConnection.get(connection.id);
    if (!routes) return [];
    return buildTriggerEvents({
      catalog: triggerCatalogOf(ctx.providers),
      connection,
      subscriptions: routes,
      mapped: events,
      deliveryId,
      occurredAt,
    });
  });
}

/** The answer when this attempt did not get the claim. */
export function notClaimed(
  ctx: Pick<AppContext, 'metrics'>,
  log: Logger,
  outcome: Exclude<DeliveryClaimOutcome, 'claimed'>,
): DeliveryAnswer {
  if (outcome === 'busy') {
    ctx.metrics.count('webhook_failed', 1, { reason: 'in_progress' });
    log.warn('another attempt of this delivery is in progress; answering 5xx so that it is tried again');
    return {
      status: 503,
      body: { error: { code: 'unavailable', message: 'Another attempt of this delivery is in progress; it will be retried' } },
    };
  }
  // Each name counted literally: the stack's metric check reads the names from the code.
  if (outcome === 'duplicate') {
    ctx.metrics.count('webhook_duplicate');
    log.info('duplicate delivery: already processed');
  } else {
    ctx.metrics.count('webhook_replay');
    log.info('replayed body under a new delivery id: already processed');
  }
  return { status: 200, body: { ok: true, duplicate: true } };
}
