import type { AppContext } from '../app/context';
import { ConnectionRepo } from '../connections/connection-repo';
import { ConditionFailedError } from '../domain/errors';
import { mapDelivery } from '../domain/mapping/map-delivery';
import type { MappedEvent } from '../domain/mapping/types';
import { secretNames } from '../domain/model';
import { verifySignature } from '../github/webhooks/signature';
import { keys, ttlIn } from '../store/table-design';
import { EndpointRepo } from '../subscriptions/endpoint-repo';
import { DeadlineExceededError, withDeadline } from './deadline';
import { checkDeliveryHeaders } from './delivery-headers';
import { buildTriggerEvents, enqueueEvents, subscriptionsByRoute } from './fan-out';

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
}

/** How long a delivery id is remembered; the sweep only looks at recent deliveries. */
export const deliveryClaimTtlSeconds = 7 * 24 * 3600;

const endpointIdFormat = /^ep_[a-z2-7]{26}$/;

function refused(status: number, code: string, message: string): DeliveryAnswer {
  return { status, body: { error: { code, message } } };
}

/**
 * One webhook delivery, in a fixed order: required headers, endpoint and its secret (fail
 * closed), signature on the raw bytes, JSON, `ping`, mapping, claim of the delivery id
 * (once), one route Query per trigger, one enqueue. Any failure after the claim releases
 * it and answers 5xx, so that a redelivery is processed rather than dropped as a duplicate.
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
  if (!checked.ok) return refuse(checked.code === 'invalid_signature' ? 'missing_signature' : 'bad_headers', refused(checked.status, checked.code, checked.message));
  const { event, deliveryId, signature } = checked.headers;
  if (!endpointIdFormat.test(req.endpointId)) return refuse('unknown_endpoint', refused(404, 'not_found', 'Unknown webhook endpoint'));

  const state = { abandoned: false, claimed: false };
  const claimKey = keys.deliveryClaim(req.endpointId, deliveryId);
  const release = async () => {
    if (!state.claimed) return;
    state.claimed = false;
    await ctx.store.delete(claimKey).catch((e: unknown) => log.error('could not release delivery claim', { error: e }));
  };

  const work = async (): Promise<DeliveryAnswer> => {
    const endpoint = await new EndpointRepo(ctx.store).get(req.endpointId);
    if (!endpoint) return refuse('unknown_endpoint', refused(404, 'not_found', 'Unknown webhook endpoint'));
    const secret = await ctx.secrets.get(secretNames.endpointSecret(endpoint.id));
    if (secret === undefined) return refuse('no_secret', refused(401, 'invalid_signature', 'Signature cannot be checked'));
    if (!(await verifySignature(secret, req.body, signature))) return refuse('bad_signature', refused(401, 'invalid_signature', 'Signature does not match'));
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
    const connection = await new ConnectionRepo(ctx.store).get(endpoint.connectionId);
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
    try {
      await ctx.store.put({ ...claimKey, endpointId: endpoint.id, deliveryId, event, ttl: ttlIn(ctx.clock.now(), deliveryClaimTtlSeconds) }, { ifNotExists: true });
      state.claimed = true;
    } catch (e) {
      if (!(e instanceof ConditionFailedError)) throw e;
      ctx.metrics.count('webhook_duplicate');
      log.info('duplicate delivery: already processed');
      return { status: 200, body: { ok: true, duplicate: true } };
    }
    if (state.abandoned) throw new DeadlineExceededError(0);
    const subscriptions = await subscriptionsByRoute(ctx, mapped.map((m) => m.trigger), (t) => keys.webhookRoute(endpoint.id, t));
    const events = buildTriggerEvents({ connection, subscriptions, mapped, deliveryId, occurredAt: new Date(ctx.clock.now()).toISOString() });
    if (state.abandoned) throw new DeadlineExceededError(0);
    await enqueueEvents(ctx, events);
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
      // The store may be what is slow: release in the background, never past the deadline.
      void release();
      running.then(release, release).catch(() => undefined);
    } else {
      await release();
    }
    const slow = e instanceof DeadlineExceededError;
    ctx.metrics.count('webhook_failed', 1, { reason: slow ? 'deadline' : 'error' });
    log.error('webhook delivery failed; the code host will see a 5xx and the sweep will redeliver', { error: e });
    return refused(503, 'unavailable', slow ? 'Intake is slow right now; the delivery will be retried' : 'Intake failed; the delivery will be retried');
  }
}
