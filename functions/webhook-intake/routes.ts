import type { AppContext } from '../../shared/ports/app-context';
import { checkDeliveryHeaders } from '../../shared/intake/delivery-headers';
import { receiveDelivery, type IntakeOptions } from '../../shared/intake/receive-delivery';
import { receiveSnareDelivery } from '../../shared/intake/contentsnare-source';
import { lambdaMaxBodyBytes } from '../../shared/http/body-limits';
import { json } from '../../shared/http/responses';
import type { Route } from '../../shared/http/types';

/**
 * `POST /webhooks/github/{endpointId}`: the code host's deliveries (no platform key; the signature is the auth).
 * `POST /webhooks/contentsnare/{connectionId}/{token}`: the collection service's (the URL's token is the auth).
 */
export function routes(ctx: AppContext, options: IntakeOptions = {}): Route[] {
  return [
    {
      method: 'POST',
      pattern: '/webhooks/github/:endpointId',
      auth: 'none',
      maxBodyBytes: lambdaMaxBodyBytes,
      // Missing code-host headers are refused before an anonymous body is read (receiveDelivery checks them again).
      refuseHead: (req) => {
        const checked = checkDeliveryHeaders(req.headers);
        if (checked.ok) return undefined;
        const reason = checked.code === 'invalid_signature' ? 'missing_signature' : 'bad_headers';
        ctx.metrics.count('webhook_refused', 1, { reason });
        ctx.logger.warn('webhook delivery refused', { endpointId: req.params.endpointId, reason, status: checked.status });
        return json(checked.status, { error: { code: checked.code, message: checked.message } });
      },
      handle: async (req) => {
        const answer = await receiveDelivery(
          ctx,
          { endpointId: req.params.endpointId ?? '', headers: req.headers, body: req.body },
          options,
        );
        return json(answer.status, answer.body);
      },
    },
    {
      method: 'POST',
      pattern: '/webhooks/contentsnare/:connectionId/:token',
      auth: 'none',
      maxBodyBytes: lambdaMaxBodyBytes,
      handle: async (req) => {
        const answer = await receiveSnareDelivery(
          ctx,
          { connectionId: req.params.connectionId ?? '', token: req.params.token ?? '', headers: req.headers, body: req.body },
          options,
        );
        return json(answer.status, answer.body);
      },
    },
  ];
}
