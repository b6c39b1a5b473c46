import type { AppContext } from '../ports/app-context';
import { mapDelivery } from '../domain/mapping/map-delivery';
import type { MappedEvent } from '../domain/mapping/types';
import { verifySignature } from '../github/webhooks/signature';
import { keys } from '../store/table-design';
import { EndpointRepo } from '../store/endpoint-repo';
import { DeadlineExceededError, withDeadline } from './deadline';
import { DeliveryClaims } from './delivery-claims';
import { endpointRouting } from './endpoint-cache';
import { checkDeliveryHeaders } from './delivery-headers';
import { buildTriggerEvents, enqueueEvents, subscriptionsByRoute } from '../dispatch/fan-out';

export interface DeliveryRequest {
  endpointId: string;
  /** Lower-case header names. */
  headers: Record<string, string | undefined>;
  /** The raw body bytes, exactly as signed. */
  body: Buffer;
}

export interface DeliveryAnswer {
  status: number;
  body: Record<string, unknown>;
}

export interface IntakeOptions {
  /** The code host gives up after 10 s: answer well before (RELIABILITY 14). */
  deadlineMs?: number;
  /** How long an attempt that finds another attempt of the same delivery in progress waits for it before answering 503. */
  busyWaitMs?: number;
}

/** Long enough for a live attempt to end first (most are done in milliseconds), short enough to answer in the code host's 10 s. */
const defaultBusyWaitMs = 2000;

/** After a missed deadline, how long the answer may wait for the claim's release (8 s + this < 10 s). */
const releaseGraceMs = 500;

const endpointIdFormat = /^ep_[a-z2-7]{26}$/;

function refused(status: number, code: string, message: string): DeliveryAnswer {
  return { status, body: { error: { code, message } } };
}

/**
 * One webhook delivery, in a fixed order: required headers, endpoint and its secret (fail
 * closed; cached per container for a few seconds, see endpoint-cache.ts), signature on the raw bytes, JSON, `ping`, mapping, the claim of the signed body
 * (delivery-claims.ts), one route Query per trigger, one enqueue, then the claim and the
 * delivery id marked done. Any failure after the claim releases it and answers 5xx,
 * so that a redelivery is processed rather than dropped as a duplicate; an attempt that
 * dies leaves a claim whose short lease lapses, with the same effect.
 */
export async function receiveDelivery(ctx: AppContext, req: DeliveryRequest, options: IntakeOptions = {}): Promise<DeliveryAnswer> {
  const checked = checkDeliveryHeaders(req.headers);
  const base = { endpointId: req.endpointId, event: req.headers['x-github-event'], deliveryId: req.headers['x-github-delivery'] };
  const log = ctx.logger.child(base);
  const refuse = (reason: string, answer: DeliveryAnswer): DeliveryAnswer => {
    ctx.metrics.count('webhook_refused', 1, { reason });
    log.warn('webhook delivery refused', { reason, status: answer.status });
    return answer;
  };
  if (!checked.ok)
    return refuse(
      checked.code === 'invalid_signature' ? 'missing_signature' : 'bad_headers',
      refused(checked.status, checked.code, checked.message),
    );
  const { event, deliveryId, signature } = checked.headers;
  if (!endpointIdFormat.test(req.endpointId)) return refuse('unknown_endpoint', refused(404, 'not_found', 'Unknown webhook endpoint'));

  const state = { abandoned: false };
  const claims = new DeliveryClaims(ctx, log);
  const release = () => claims.release();

  const work = async (): Promise<DeliveryAnswer> => {
    let routing = await endpointRouting(ctx, req.endpointId);
    let valid = routing?.secret !== undefined && (await verifySignature(routing.secret, req.body, signature));
    // A cached secret that does not match may be stale (the hook was re-created): read it again once.
    if (!valid && routing?.fromCache) {
      routing = await endpointRouting(ctx, req.endpointId, true);
      valid = routing?.secret !== undefined && (await verifySignature(routing.secret, req.body, signature));
    }
    if (!routing) return refuse('unknown_endpoint', refused(404, 'not_found', 'Unknown webhook endpoint'));
    if (routing.secret === undefined) return refuse('no_secret', refused(401, 'invalid_signature', 'Signature cannot be checked'));
    if (!valid) return refuse('bad_signature', refused(401, 'invalid_signature', 'Signature does not match'));
    const { endpoint, connection } = routing;
    let payload: unknown;
    try {
      payload = JSON.parse(req.body.toString('utf8'));
    } catch {
      return refuse('bad_json', refused(400, 'invalid_input', 'Body is not valid JSON'));
    }
    if (event === 'ping') {
      await new EndpointRepo(ctx.store).update(endpoint.id, (e) => ({ ...e, verifiedAt: new Date(ctx.clock.now()).toISOString() }));
      ctx.metrics.count('webhook_ping');
      log.info('webhook endpoint verified by ping');
      return { status: 200, body: { ok: true, ping: true } };
    }
    if (!connection) return refuse('no_connection', refused(404, 'not_found', 'Unknown webhook endpoint'));
    let mapped: MappedEvent[];
    try {
      mapped = mapDelivery({ event, payload, accountLogin: connection.accountLogin });
    } catch (e) {
      // A payload the mapping cannot read is not a trigger; a 4xx/5xx would only make the code host count a failure.
      log.error('mapping failed; delivery dropped', { error: e });
      mapped = [];
    }
    if (mapped.length === 0) {
      ctx.metrics.count('webhook_ignored');
      log.info('webhook delivery maps to no trigger');
      return { status: 200, body: { ok: true, accepted: 0 } };
    }
    // The route Query does not depend on the claim: run both at once (one round trip of latency, not two).
    const routes = subscriptionsByRoute(
      ctx,
      mapped.map((m) => m.trigger),
      (t) => keys.webhookRoute(endpoint.id, t),
    );
    routes.catch(() => undefined);
    const claimed = await claims.take(
      { endpointId: endpoint.id, deliveryId, event, body: req.body },
      options.busyWaitMs ?? defaultBusyWaitMs,
      () => state.abandoned,
    );
    if (claimed === 'duplicate' || claimed === 'replay') {
      if (claimed === 'duplicate') ctx.metrics.count('webhook_duplicate');
      else ctx.metrics.count('webhook_replay');
      log.info(
        claimed === 'duplicate' ? 'duplicate delivery: already processed' : 'replayed body under a new delivery id: already processed',
      );
      return { status: 200, body: { ok: true, duplicate: true } };
    }
    if (claimed === 'busy') {
      ctx.metrics.count('webhook_failed', 1, { reason: 'in_progress' });
      log.warn('another attempt of this delivery is in progress; answering 5xx so that it is tried again');
      return refused(503, 'unavailable', 'Another attempt of this delivery is in progress; it will be retried');
    }
    if (state.abandoned) throw new DeadlineExceededError(0);
    const subscriptions = await routes;
    const events = buildTriggerEvents({
      connection,
      subscriptions,
      mapped,
      deliveryId,
      occurredAt: new Date(ctx.clock.now()).toISOString(),
    });
    if (state.abandoned) throw new DeadlineExceededError(0);
    await enqueueEvents(ctx, events);
    // Done only now that the events are queued: a crash before this leaves leases that lapse.
    // The events are queued whatever happens to the marks, so a failed mark is logged, not
    // answered 5xx (its redelivery would only queue copies that dispatch drops by event id).
    await claims
      .finish()
      .catch((e: unknown) => log.error('could not mark the delivery done; its claim lapses with its lease', { error: e }));
    ctx.metrics.count('webhook_accepted');
    ctx.metrics.count('trigger_events_enqueued', events.length);
    log.info('webhook delivery accepted', { triggers: [...new Set(mapped.map((m) => m.trigger))], enqueued: events.length });
    return { status: 202, body: { ok: true, accepted: events.length } };
  };

  const running = work();
  try {
    return await withDeadline(running, options.deadlineMs ?? 8000, () => {
      state.abandoned = true;
    });
  } catch (e) {
    // Whatever happened, a claim taken by this attempt must not make the redelivery a "duplicate".
    if (state.abandoned) {
      // The store may be what is slow: wait for the release only briefly (the answer must still
      // leave well before the code host's 10 s), so that an immediate redelivery is not taken
      // for a duplicate when only the queue was slow; otherwise it finishes in the background.
      await Promise.race([release(), new Promise((r) => setTimeout(r, releaseGraceMs).unref())]);
      running.then(release, release).catch(() => undefined);
    } else {
      await release();
    }
    const slow = e instanceof DeadlineExceededError;
    ctx.metrics.count('webhook_failed', 1, { reason: slow ? 'deadline' : 'error' });
    log.error('webhook delivery failed; the code host will see a 5xx and the sweep will redeliver', { error: e });
    return refused(
      503,
      'unavailable',
      slow ? 'Intake is slow right now; the delivery will be retried' : 'Intake failed; the delivery will be retried',
    );
  }
}
