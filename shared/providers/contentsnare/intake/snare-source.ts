import { SnareHookRepo, snareRouteId, tokenMatches, type SnareHook } from '../snare-hook';
import { subscriptionsByRoute } from '../../../dispatch/fan-out';
import { newSnareReadBack, snareReadBackMessage } from '../dispatch/read-back-job';
import type { Connection } from '../../../domain/model';
import { parseSnareDelivery } from '../mapping/snare-delivery';
import type { AppContext } from '../../../ports/app-context';
import { ConnectionRepo } from '../../../store/connection-repo';
import { keys } from '../../../store/table-design';
import { refusal, type DeliveryAnswer, type IntakeSource } from '../../../intake/intake-source';
import { answerInTime, type IntakeOptions } from '../../../intake/receive-delivery';
import { snareHeaders } from './delivery-headers';

/** What the collection-service verifier learned: the connection's hook and the connection. */
export interface SnareVerified {
  hook: SnareHook;
  connection: Connection;
}

const connectionIdFormat = /^conn_[0-9a-f]{32}$/;
/** Compared against when there is no hook, so that an unknown connection takes as long as a wrong token. */
const absentHook: Pick<SnareHook, 'tokenSha256'> = { tokenSha256: '0'.repeat(64) };

const notFound = () => refusal('unknown_endpoint', 404, 'not_found', 'Unknown webhook endpoint');
const nothing: DeliveryAnswer = { status: 200, body: { ok: true, accepted: 0 } };
/** The delivery is on the queue; how many events it makes is known once its records are read back. */
const queuedAnswer: DeliveryAnswer = { status: 202, body: { ok: true, queued: true } };

/**
 * The collection service's deliveries (`POST /webhooks/contentsnare/{connectionId}/{token}`).
 * The service signs nothing and sends no delivery id, so:
 * - the verifier checks the URL's per-connection token against the hook's hash in constant
 *   time (a wrong one is 404, counted and logged like any refused delivery);
 * - the mapper believes only the event name and the ids of the body, and accepts the delivery
 *   durably before anything else: a read-back job on the dispatch queue, then `202`. Nothing
 *   the service may not send again waits on the account's rate limit here;
 * - the job (shared/providers/contentsnare/read-back-job.ts) reads the records back through the
 *   connection's client within that limit, and the event carries what the API reports; a
 *   record the connection cannot see, or whose state does not bear the event out, dispatches
 *   nothing; its claim is taken on the change (event, record, episode of its state), not on
 *   the body, so redeliveries and bursts of one change are announced once and a later change again.
 */
export function contentSnareSource(ctx: AppContext): IntakeSource<SnareVerified> {
  return {
    verifier: {
      headers: snareHeaders,
      verify: async (req) => {
        const token = req.pathToken ?? '';
        const hook = connectionIdFormat.test(req.pathId) ? await new SnareHookRepo(ctx.store).get(req.pathId) : undefined;
        const matches = tokenMatches(hook ?? absentHook, token);
        if (!hook || !matches) return { ok: false, refusal: notFound() };
        const connection = await new ConnectionRepo(ctx.store).get(hook.connectionId);
        if (connection?.provider !== 'contentsnare') return { ok: false, refusal: notFound() };
        return { ok: true, value: { hook, connection: connection as Connection } };
      },
    },
    router: {
      tenant: async ({ connection }) => {
        if (connection.status !== 'connected')
          return { ok: false, refusal: refusal('connection_inactive', 409, 'reconnect_required', 'The connection must be reconnected') };
        return { ok: true, value: { connections: [connection], routeId: snareRouteId(connection.id) } };
      },
      subscriptions: ({ connection }, _tenant, triggers) =>
        subscriptionsByRoute(ctx, triggers, (t) => keys.webhookRoute(snareRouteId(connection.id), t)),
    },
    mapper: {
      map: async ({ verified, payload, log }) => {
        const parsed = parseSnareDelivery(payload);
        if (parsed.kind === 'other' || (parsed.kind === 'delivery' && !verified.hook.events.includes(parsed.delivery.event))) {
          ctx.metrics.count('webhook_ignored');
          log.info('collection-service delivery maps to no subscribed trigger', {
            event: parsed.kind === 'other' ? parsed.event : parsed.delivery.event,
          });
          return { kind: 'answered', answer: nothing };
        }
        if (parsed.kind === 'misfit') {
          ctx.metrics.count('webhook_rejected_shape', 1, { event: parsed.event || 'contentsnare' });
          log.warn('collection-service delivery does not name what its event needs; refused', {
            event: parsed.event,
            offendingKeys: parsed.keys,
          });
          return { kind: 'answered', answer: nothing };
        }
        // Accepted once the job is on the queue: a failure to queue it is a 503, and the service may send it again.
        await ctx.queue.sendBatch([snareReadBackMessage(newSnareReadBack(verified.connection.id, parsed.delivery, ctx.clock.now()))]);
        ctx.metrics.count('contentsnare_accepted', 1, { event: parsed.delivery.event });
        log.info('collection-service delivery accepted; its records are read back from the queue', { event: parsed.delivery.event });
        return { kind: 'answered', answer: queuedAnswer };
      },
    },
  };
}

export interface SnareDeliveryRequest {
  connectionId: string;
  /** The URL's token, compared against the hook's hash; never logged. */
  token: string;
  headers: Record<string, string | undefined>;
  body: Buffer;
}

/** One collection-service delivery, answered within the intake's deadline (the shared pipeline with this source). */
export function receiveSnareDelivery(ctx: AppContext, req: SnareDeliveryRequest, options: IntakeOptions = {}): Promise<DeliveryAnswer> {
  return answerInTime(
    ctx,
    contentSnareSource(ctx),
    { pathId: req.connectionId, pathToken: req.token, headers: req.headers, body: req.body },
    options,
  );
}
