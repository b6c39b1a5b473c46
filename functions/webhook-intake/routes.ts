import type { AppContext } from '../../shared/ports/app-context';
import { checkDeliveryHeaders } from '../../shared/intake/delivery-headers';
import { receiveAppDelivery, receiveDelivery, type IntakeOptions } from '../../shared/intake/receive-delivery';
import { lambdaMaxBodyBytes } from '../../shared/http/body-limits';
import { json } from '../../shared/http/responses';
import type { HttpResponse, RequestHead, Route } from '../../shared/http/types';

/**
 * `POST /webhooks/github/app` (the GitHub App's one webhook) and `POST /webhooks/github/{endpointId}`
 * (the hooks the product made): the code host's deliveries (no platform key; the signature is the auth).
 * The App's route comes first: `app` is no endpoint id.
 */
export function routes(ctx: AppContext, options: IntakeOptions = {}): Route[] {
  // Missing code-host headers are refused before an anonymous body is read (the pipeline checks them again).
  const refuseHead = (req: RequestHead & { params: Record<string, string> }): HttpResponse | undefined => {
    const checked = checkDeliveryHeaders(req.headers);
    if (checked.ok) return undefined;
    const reason = checked.code === 'invalid_signature' ? 'missing_signature' : 'bad_headers';
    ctx.metrics.count('webhook_refused', 1, { reason });
    ctx.logger.warn('webhook delivery refused', { endpointId: req.params.endpointId ?? 'app', reason, status: checked.status });
    return json(checked.status, { error: { code: checked.code, message: checked.message } });
  };
  return [
    {
      method: 'POST',
      pattern: '/webhooks/github/app',
      auth: 'none',
      maxBodyBytes: lambdaMaxBodyBytes,
      refuseHead,
      handle: async (req) => {
        const answer = await receiveAppDelivery(ctx, { headers: req.headers, body: req.body }, options);
        return json(answer.status, answer.body);
      },
    },
    {
      method: 'POST',
      pattern: '/webhooks/github/:endpointId',
      auth: 'none',
      maxBodyBytes: lambdaMaxBodyBytes,
      refuseHead,
      handle: async (req) => {
        const answer = await receiveDelivery(
          ctx,
          { endpointId: req.params.endpointId ?? '', headers: req.headers, body: req.body },
          options,
        );
        return json(answer.status, answer.body);
      },
    },
  ];
}
