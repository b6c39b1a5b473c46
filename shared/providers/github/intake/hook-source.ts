import { verifySignature } from '../webhooks/signature';
import { subscriptionsByRoute } from '../../../dispatch/fan-out';
import type { AppContext } from '../../../ports/app-context';
import { EndpointRepo } from '../../../store/endpoint-repo';
import { keys } from '../../../store/table-design';
import { codeHostMapping } from './code-host-mapping';
import { codeHostHeaders } from './delivery-headers';
import { followMissedRenames, isRenameEvent, onRenameEvent } from './follow-renames';
import { oncePerDelivery } from './once-per-delivery';
import { endpointRouting, type EndpointRouting } from './endpoint-cache';
import { refusal, type DeliveryHeaders, type IntakeSource, type Verdict } from '../../../intake/intake-source';

const endpointIdFormat = /^ep_[a-z2-7]{26}$/;

const unknownEndpoint = () => refusal('unknown_endpoint', 404, 'not_found', 'Unknown webhook endpoint');

/**
 * The code host's repository and organization hooks (`POST /webhooks/github/{endpointId}`):
 * each endpoint has its own secret, and the endpoint's connection is whose the delivery is.
 * Its events reach the subscriptions of the endpoint's route partition (one Query per trigger).
 */
export function githubHookSource(ctx: AppContext): IntakeSource<EndpointRouting> {
  return {
    verifier: {
      headers: codeHostHeaders,
      verify: async (req, headers) => {
        if (!endpointIdFormat.test(req.pathId)) return { ok: false, refusal: unknownEndpoint() };
        return verifyHookSignature(ctx, req.pathId, req.body, headers);
      },
      answerEvent: async (routing, headers, log, payload, delivery) => {
        // A repository renamed or transferred: its hook follows it; the stored names follow too,
        // and this container's cached connection is read again (other containers' within endpointCacheTtlMs).
        if (isRenameEvent(headers.event, payload)) {
          const connections = routing.connection ? [routing.connection] : [];
          // Once per delivery, as every delivery: an old rename replayed must not undo a newer one.
          const answer = await oncePerDelivery(ctx, log, { routeId: routing.endpoint.id, headers, delivery }, () =>
            onRenameEvent(ctx, log, headers.event, connections, payload),
          );
          await endpointRouting(ctx, routing.endpoint.id, true);
          return answer;
        }
        if (headers.event !== 'ping') return undefined;
        const verifiedAt = new Date(ctx.clock.now()).toISOString();
        await new EndpointRepo(ctx.store).update(routing.endpoint.id, (e) => ({ ...e, verifiedAt }));
        ctx.metrics.count('webhook_ping');
        log.info('webhook endpoint verified by ping');
        return { status: 200, body: { ok: true, ping: true } };
      },
    },
    router: {
      tenant: async (routing) => {
        if (!routing.connection) return { ok: false, refusal: refusal('no_connection', 404, 'not_found', 'Unknown webhook endpoint') };
        return { ok: true, value: { connections: [routing.connection], routeId: routing.endpoint.id } };
      },
      subscriptions: (routing, _tenant, triggers) => subscriptionsByRoute(ctx, triggers, (t) => keys.webhookRoute(routing.endpoint.id, t)),
      amend: followMissedRenames(ctx),
    },
    mapping: codeHostMapping,
  };
}

/**
 * The endpoint (cached per container, see endpoint-cache.ts) and the signature of the raw
 * bytes with its secret, failing closed. A cached secret that does not match may be stale (the
 * hook was re-created): it is read again once.
 */
async function verifyHookSignature(
  ctx: AppContext,
  endpointId: string,
  body: Buffer,
  headers: DeliveryHeaders,
): Promise<Verdict<EndpointRouting>> {
  const signature = headers.signature ?? '';
  let routing = await endpointRouting(ctx, endpointId);
  let valid = routing?.secret !== undefined && (await verifySignature(routing.secret, body, signature));
  if (!valid && routing?.fromCache) {
    routing = await endpointRouting(ctx, endpointId, true);
    valid = routing?.secret !== undefined && (await verifySignature(routing.secret, body, signature));
  }
  if (!routing) return { ok: false, refusal: unknownEndpoint() };
  if (routing.secret === undefined)
    return { ok: false, refusal: refusal('no_secret', 401, 'invalid_signature', 'Signature cannot be checked') };
  if (!valid) return { ok: false, refusal: refusal('bad_signature', 401, 'invalid_signature', 'Signature does not match') };
  return { ok: true, value: routing };
}
