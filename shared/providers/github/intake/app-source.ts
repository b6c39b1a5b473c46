import * as z from 'zod';
import { takesEvents } from '../../../domain/model';
import { subscriptionsByRoute } from '../../../dispatch/fan-out';
import { verifySignature } from '../webhooks/signature';
import type { AppContext } from '../../../ports/app-context';
import { ConnectionRepo } from '../../../store/connection-repo';
import { keys } from '../../../store/table-design';
import { type AppLifecycleEvent, appLifecycleMessage, maxJobBytes, newAppLifecycleJob } from '../dispatch/app-lifecycle-job';
import type { Logger } from '../../../observability/logger';
import { badPayload } from '../app/lifecycle/installation-event';
import { codeHostMapping } from './code-host-mapping';
import { codeHostHeaders } from './delivery-headers';
import { oncePerDelivery } from './once-per-delivery';
import { followMissedRenames, installationConnections, isRenameEvent, onRenameEvent } from './follow-renames';
import { refusal, type DeliveryAnswer, type IntakeSource, type Tenant } from '../../../intake/intake-source';

/** What the App source learned by verifying a delivery: only that the App's secret signed it. */
export interface AppDelivery {
  kind: 'github_app';
}

const routed = z.object({ installation: z.object({ id: z.number().int().positive() }) });

/**
 * The GitHub App's one webhook (`POST /webhooks/github/app`): every installation's
 * deliveries, signed with the App's webhook secret (checked on the raw bytes). The
 * installation's own events (`installation`, `installation_repositories`,
 * `github_app_authorization`) keep its connections true and are answered here; every other
 * delivery belongs to every live connection of the installation it names, is claimed once
 * under that installation, and reaches their subscriptions through the installation's route
 * partitions (one Query per trigger, however many connections share the installation).
 */
export function githubAppSource(ctx: AppContext): IntakeSource<AppDelivery> {
  return {
    verifier: {
      headers: codeHostHeaders,
      verify: async (req, headers) => {
        if (!ctx.config.github.app)
          return { ok: false, refusal: refusal('app_not_configured', 404, 'not_found', 'The GitHub App is not configured here') };
        const secret = await ctx.githubAppSecret('webhookSecret');
        if (!secret)
          return {
            ok: false,
            refusal: refusal('no_secret', 401, 'invalid_signature', 'Signature cannot be checked: GITHUB_APP_WEBHOOK_SECRET is not set'),
          };
        if (!(await verifySignature(secret, req.body, headers.signature)))
          return { ok: false, refusal: refusal('bad_signature', 401, 'invalid_signature', 'Signature does not match') };
        return { ok: true, value: { kind: 'github_app' } };
      },
      answerEvent: async (_verified, headers, log, payload, delivery) => {
        const once = (apply: () => Promise<DeliveryAnswer>) =>
          oncePerDelivery(ctx, log, { routeId: lifecycleRouteId(payload), headers, delivery }, apply);
        // The installation's account renamed (`installation_target`), a repository renamed or transferred.
        if (isRenameEvent(headers.event, payload)) {
          const installation = routed.safeParse(payload);
          const connections = installation.success ? await installationConnections(ctx, installation.data.installation.id) : [];
          return once(() => onRenameEvent(ctx, log, headers.event, connections, payload));
        }
        switch (headers.event) {
          case 'ping':
            ctx.metrics.count('webhook_ping');
            log.info('GitHub App webhook verified by ping');
            return { status: 200, body: { ok: true, ping: true } };
          // The installation's own events change connections: each is claimed once, like any delivery, and
          // applied by the dispatch consumer, which holds the code-host credentials their read-backs need.
          case 'installation':
          case 'installation_repositories':
          case 'github_app_authorization':
            return once(() => queueLifecycle(ctx, log, headers.event as AppLifecycleEvent, headers.deliveryId, payload));
          default:
            return undefined;
        }
      },
    },
    router: {
      tenant: async (_verified, payload) => {
        const parsed = routed.safeParse(payload);
        if (!parsed.success)
          return {
            ok: false,
            refusal: refusal('no_installation', 400, 'invalid_input', 'installation.id: an App delivery names its installation'),
          };
        const installationId = parsed.data.installation.id;
        const connections = (await new ConnectionRepo(ctx.store).byInstallation(installationId)).filter((c) => takesEvents(c.status));
        // Installed, but nobody connected through it (or every connection is paused): nothing to reach, nothing to retry.
        if (connections.length === 0)
          return { ok: false, refusal: { reason: 'no_connection', answer: { status: 200, body: { ok: true, accepted: 0 } } } };
        return { ok: true, value: { connections, routeId: keys.appRouteId(installationId) } };
      },
      subscriptions: (_verified, tenant, triggers) => {
        const installationId = installationIdOf(tenant);
        return subscriptionsByRoute(ctx, triggers, (t) => keys.appRoute(installationId, t));
      },
      amend: followMissedRenames(ctx),
    },
    mapping: codeHostMapping,
  };
}

const queuedAnswer: DeliveryAnswer = { status: 202, body: { ok: true, queued: true } };

/**
 * Accepts a lifecycle delivery: its job on the dispatch queue, then 202 (the claim is finished
 * only then). A queue that does not take it is a 503: the claim is given back, and the code
 * host's (or the sweep's) redelivery is accepted.
 */
async function queueLifecycle(
  ctx: AppContext,
  log: Logger,
  event: AppLifecycleEvent,
  deliveryId: string,
  payload: unknown,
): Promise<DeliveryAnswer> {
  const made = newAppLifecycleJob(event, deliveryId, payload);
  if (made.kind === 'misfit') return badPayload(event, made.fields);
  const message = appLifecycleMessage(made.job);
  if (Buffer.byteLength(message.body) > maxJobBytes) {
    ctx.metrics.count('app_installation_event', 1, { action: 'too_large' });
    log.error('GitHub App lifecycle delivery lists more repositories than a queue message holds; refused', { event });
    return {
      status: 413,
      body: { error: { code: 'payload_too_large', message: `${event} delivery: too many repositories listed to queue` } },
    };
  }
  try {
    await ctx.queue.sendBatch([message]);
  } catch (e) {
    log.warn('could not queue the GitHub App lifecycle delivery; it is refused for a redelivery', { event, error: e });
    return { status: 503, body: { error: { code: 'unavailable', message: 'The delivery could not be queued; send it again' } } };
  }
  ctx.metrics.count('app_installation_event', 1, { action: 'queued' });
  log.info('GitHub App lifecycle delivery accepted; it is applied from the dispatch queue', { event });
  return queuedAnswer;
}

/**
 * Where a lifecycle delivery's claim is kept: under its installation, as the installation's
 * other deliveries (so the sweep finds it by the installation its log names), or, for a
 * delivery naming none (`github_app_authorization` names a user), under the App's own route id.
 */
function lifecycleRouteId(payload: unknown): string {
  const parsed = routed.safeParse(payload);
  return parsed.success ? keys.appRouteId(parsed.data.installation.id) : appOwnRouteId;
}

/** The route id of App deliveries that name no installation. */
export const appOwnRouteId = 'app_authorization';

/** Every connection of an App tenant shares its installation (they were found by it). */
function installationIdOf(tenant: Tenant): number {
  const id = tenant.connections[0]?.installation?.id;
  if (id === undefined) throw new Error('an App tenant without an installation');
  return id;
}
