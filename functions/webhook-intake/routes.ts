import type { AppContext } from '../../shared/ports/app-context';
import { checkDeliveryHeaders, headerRefusalReason } from '../../shared/providers/github/intake/delivery-headers';
import { receiveAppDelivery, receiveDelivery, type IntakeOptions } from '../../shared/intake/receive-delivery';
import { receiveSnareDelivery } from '../../shared/providers/contentsnare/intake/snare-source';
import { json } from '../../shared/http/responses';
import { bindRoutes } from '../../shared/http/route-table';
import type { HttpResponse, RequestHead, Route } from '../../shared/http/types';
import { intakeRouteTable } from './route-table';

/** Missing code-host headers are refused before an anonymous body is read (the pipeline checks them again). */
function headerRefusal(ctx: AppContext) {
  return (req: RequestHead & { params: Record<string, string> }): HttpResponse | undefined => {
    const checked = checkDeliveryHeaders(req.headers);
    if (checked.ok) return undefined;
    const reason = headerRefusalReason(checked);
    ctx.metrics.count('webhook_refused', 1, { reason });
    ctx.logger.warn('webhook delivery refused', { endpointId: req.params.endpointId ?? 'app', reason, status: checked.status });
    return json(checked.status, { error: { code: checked.code, message: checked.message } });
  };
}

/** The webhook intake's routes (functions/webhook-intake/route-table.ts), each with its handler. */
export function routes(ctx: AppContext, options: IntakeOptions = {}): Route[] {
  const refuseHead = headerRefusal(ctx);
  return bindRoutes(intakeRouteTable, {
    appDelivery: {
      refuseHead,
      handle: async (req) => {
        const answer = await receiveAppDelivery(ctx, { headers: req.headers, body: req.body }, options);
        return json(answer.status, answer.body);
      },
    },
    hookDelivery: {
      refuseHead,
      handle: async (req) => {
        const delivery = { endpointId: req.params.endpointId ?? '', headers: req.headers, body: req.body };
        const answer = await receiveDelivery(ctx, delivery, options);
        return json(answer.status, answer.body);
      },
    },
    snareDelivery: async (req) => {
      const { connectionId = '', token = '' } = req.params;
      const answer = await receiveSnareDelivery(ctx, { connectionId, token, headers: req.headers, body: req.body }, options);
      return json(answer.status, answer.body);
    },
  });
}
