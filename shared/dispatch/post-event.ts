import type { AppContext } from '../ports/app-context';
import type { TriggerEvent } from '../domain/model';
import { readLimitedBody } from '../http/read-response';
import { describeNetworkFailure } from '../http/network-cause';
import { parseRetryAfter } from './backoff';
import { eventBody, signatureHeaders } from './sign-event';

export type PostOutcome =
  | { kind: 'delivered'; status: number }
  /**
   * Worth another try later (non-2xx, network, timeout). `timedOut`: no answer within the
   * limit, so the runtime may or may not have the event.
   */
  | { kind: 'retry'; status?: number; reason: string; retryAfterSeconds?: number; throttled: boolean; timedOut: boolean };

/** The agent runtime's answer body is not used: read this much of it (so the connection can be reused), drop the rest. */
const maxAnswerBytes = 64 * 1024;

export interface PostOptions {
  /** Limit for the whole exchange, answer body included. */
  timeoutMs?: number;
  /** The signal that ends the exchange after `ms` (tests end the one of a chosen event by hand). */
  deadline?: (ms: number, eventId: string) => AbortSignal;
}

/** POSTs one trigger event to the agent runtime, signed with `X-Signature-256` and the timestamped pair (sign-event.ts). */
export async function postEvent(ctx: AppContext, url: string, event: TriggerEvent, options: PostOptions = {}): Promise<PostOutcome> {
  const { timeoutMs = 10_000, deadline = (ms: number) => AbortSignal.timeout(ms) } = options;
  const body = eventBody(event);
  const signatures = signatureHeaders(await ctx.dispatchSigningSecret(), body, ctx.clock.now());
  const signal = deadline(timeoutMs, event.id);
  let res: Response;
  try {
    res = await ctx.fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...signatures, 'user-agent': 'agent-integrations-dispatch' },
      body,
      signal,
      redirect: 'manual',
    });
    // The exchange ends with the body: a runtime that sends its headers and then stalls holds nothing.
    await readLimitedBody(res, maxAnswerBytes, 'the agent runtime').catch(() => res.body?.cancel().catch(() => undefined));
  } catch (e) {
    const timedOut = signal.aborted;
    return {
      kind: 'retry',
      reason: timedOut ? `no answer within ${timeoutMs} ms` : describeNetworkFailure(e),
      throttled: false,
      timedOut,
    };
  }
  if (res.status >= 200 && res.status < 300) return { kind: 'delivered', status: res.status };
  const retryAfterSeconds = parseRetryAfter(res.headers.get('retry-after'), ctx.clock.now());
  const throttled = res.status === 429 || (res.status === 503 && retryAfterSeconds !== undefined);
  return { kind: 'retry', status: res.status, reason: `HTTP ${res.status}`, retryAfterSeconds, throttled, timedOut: false };
}
