import type { AppContext } from '../../shared/ports/app-context';
import { receiveWebhook, type IntakeOptions } from '../../shared/intake/receive-delivery';
import { webhookFor, type WebhookIntake } from '../../shared/intake/provider-intake';
import { json } from '../../shared/http/responses';
import { bindRoutes, type RouteBinding } from '../../shared/http/route-table';
import type { HttpResponse, RequestHead, Route } from '../../shared/http/types';
import { intakeRouteTable } from './route-table';

/** A delivery missing the headers its source requires is refused before an anonymous body is read (the pipeline checks them again). */
function headerRefusal(ctx: AppContext, webhook: WebhookIntake) {
  return (req: RequestHead & { params: Record<string, string> }): HttpResponse | undefined => {
    const checked = webhook.headers(req.headers);
    if (checked.ok) return undefined;
    const { reason, answer } = checked.refusal;
    ctx.metrics.count('webhook_refused', 1, { reason });
    ctx.logger.warn('webhook delivery refused', { endpointId: webhook.path(req.params).pathId, reason, status: answer.status });
    return json(answer.status, answer.body);
  };
}

type IntakeRoute = keyof typeof intakeRouteTable;

/**
 * The webhook intake's routes (functions/webhook-intake/route-table.ts), each answered by the
 * provider webhook of `webhooks` that declares it (the wiring's `providerWebhooks`).
 */
export function routes(ctx: AppContext, webhooks: readonly WebhookIntake[], options: IntakeOptions = {}): Route[] {
  const delivery = (route: IntakeRoute): RouteBinding<(typeof intakeRouteTable)[IntakeRoute]> => {
    const webhook = webhookFor(webhooks, route);
    return {
      refuseHead: headerRefusal(ctx, webhook),
      handle: async (req) => {
        const answer = await receiveWebhook(ctx, webhook, { params: req.params, headers: req.headers, body: req.body }, options);
        return json(answer.status, answer.body);
      },
    };
  };
  return bindRoutes(intakeRouteTable, {
    appDelivery: delivery('appDelivery'),
    hookDelivery: delivery('hookDelivery'),
    snareDelivery: delivery('snareDelivery'),
  });
}
