import * as z from 'zod';
import type { CodeHostAccess } from '../github/code-host-access';
import { AppError } from '../domain/errors';
import type { Endpoint } from '../domain/model';
import { hooksPath } from '../github/webhooks/hook-registration';
import { isOk, restCall, upstreamMessage } from '../github/webhooks/rest-call';
import type { Fetch } from '../ports';

const deliverySchema = z.object({
  id: z.number(),
  guid: z.string(),
  delivered_at: z.string().optional(),
  redelivery: z.boolean().optional(),
  status_code: z.number().optional(),
  event: z.string().optional(),
});

export type HookDelivery = z.output<typeof deliverySchema>;

function hookBase(endpoint: Endpoint): string {
  return `${hooksPath(endpoint.target)}/${endpoint.hookId}`;
}

/** The hook's most recent deliveries (one page, newest first), as the code host lists them. */
export async function listHookDeliveries(fetchFn: Fetch, access: CodeHostAccess, endpoint: Endpoint): Promise<HookDelivery[]> {
  const result = await restCall(fetchFn, { ...access, method: 'GET', path: `${hookBase(endpoint)}/deliveries?per_page=100` });
  if (!isOk(result))
    throw new AppError('upstream_error', `Listing deliveries of hook ${endpoint.hookId} failed: ${upstreamMessage(result)}`, {
      upstreamStatus: result.status,
    });
  const list = Array.isArray(result.body) ? result.body : [];
  return list.flatMap((d) => {
    const parsed = deliverySchema.safeParse(d);
    return parsed.success ? [parsed.data] : [];
  });
}

/** Asks the code host to send one delivery again. */
export async function requestRedelivery(fetchFn: Fetch, access: CodeHostAccess, endpoint: Endpoint, deliveryId: number): Promise<void> {
  const result = await restCall(fetchFn, { ...access, method: 'POST', path: `${hookBase(endpoint)}/deliveries/${deliveryId}/attempts` });
  if (!isOk(result))
    throw new AppError('upstream_error', `Redelivery of ${deliveryId} refused: ${upstreamMessage(result)}`, {
      upstreamStatus: result.status,
    });
}
