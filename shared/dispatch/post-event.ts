import type { AppContext } from '../ports/app-context';
import type { TriggerEvent } from '../domain/model';
import { parseRetryAfter } from './backoff';
import { eventBody, signatureHeaders } from './sign-event';
import { discardBody } from '../http/bounded-body';

export type PostOutcome =
  | { kind: 'delivered'; status: number }
  /** Worth another try later (non-2xx, network, timeout). */
  | { kind: 'retry'; status?: number; reason: string; retryAfterSeconds?: number; throttled: boolean };

/** POSTs one trigger event to the agent runtime, signed with `X-Signature-256` and the timestamped pair (sign-event.ts). */
export async function postEvent(ctx: AppContext, url: string, event: TriggerEvent, timeoutMs = 10_000): Promise<PostOutcome> {
  const body = eventBody(event);
  const signatures = signatureHeaders(await ctx.dispatchSigningSecret(), body, ctx.clock.now());
  let res: Response;
  try {
    res = await ctx.fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...signatures, 'user-agent': 'agent-integrations-dispatch' },
      body,
      signal: AbortSignal.timeout(timeoutMs),
      redirect: 'manual',
    });
  } catch (e) {
    return { kind: 'retry', reason: `network: ${(e as Error).name}`, throttled: false };
  }
  // Only the status and Retry-After matter: the body is not read (nor inflated) at all.
  await discardBody(res);
  if (res.status >= 200 && res.status < 300) return { kind: 'delivered', status: res.status };
  const retryAfterSeconds = parseRetryAfter(res.headers.get('retry-after'), ctx.clock.now());
  const throttled = res.status === 429 || (res.status === 503 && retryAfterSeconds !== undefined);
  return { kind: 'retry', status: res.status, reason: `HTTP ${res.status}`, retryAfterSeconds, throttled };
}
