import type { AppContext } from '../../shared/app/context';
import { receiveDelivery, type IntakeOptions } from '../../shared/intake/receive-delivery';
import { lambdaMaxBodyBytes } from '../../shared/http/body-limits';
import { json } from '../../shared/http/responses';
import type { Route } from '../../shared/http/types';

/** `POST /webhooks/github/{endpointId}`: the code host's deliveries (no platform key; the signature is the auth). */
export function routes(ctx: AppContext, options: IntakeOptions = {}): Route[] {
  return [
    {
      method: 'POST',
      pattern: '/webhooks/github/:endpointId',
      auth: 'none',
      maxBodyBytes: lambdaMaxBodyBytes,
      handle: async (req) => {
        const answer = await receiveDelivery(ctx, { endpointId: req.params.endpointId ?? '', headers: req.headers, body: req.body }, options);
        return json(answer.status, answer.body);
      },
    },
  ];
}
