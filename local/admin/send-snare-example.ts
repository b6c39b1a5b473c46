import { snareHookTokenName } from '../../shared/providers/contentsnare/snare-hook';
import { AppError } from '../../shared/domain/errors';
import type { Subscription } from '../../shared/domain/model';
import type { SnareTriggerId } from '../../shared/domain/triggers';
import type { AppContext } from '../../shared/ports/app-context';
import type { Fetch } from '../../shared/ports';
import { loadSnareExample } from '../../shared/providers/contentsnare/triggers/examples';
import { applyOverrides, type Override } from './example-overrides';

export interface SnareExampleResult {
  /** Posted unsigned: the token in its URL is the delivery's check. */
  kind: 'url-token';
  subscriptionId: string;
  event: string;
  /** The URL posted to, its token masked. */
  url: string;
  /** The record the delivery names, which the intake reads back. */
  subjectId: string;
  sentAt: string;
  intake: { status: number; body: unknown };
}

/**
 * `npm run trigger -- contentsnare.<event>`: the documented delivery (with `--set` changes)
 * POSTed to this runtime's intake at the connection's hook URL, as the service would post it.
 * The intake reads the record it names back at the service: under `npm run dev` the
 * simulated service holds the examples' records, so it is confirmed; against the real
 * service, name a record of your account (`--set id=req_...`), or nothing is dispatched.
 */
export async function sendSnareExample(
  deps: { ctx: Pick<AppContext, 'secrets' | 'clock'>; fetch: Fetch; intakeBase: string },
  sub: Subscription,
  overrides: readonly Override[],
): Promise<SnareExampleResult> {
  const trigger = sub.trigger as SnareTriggerId;
  const token = await deps.ctx.secrets.get(snareHookTokenName(sub.connectionId));
  if (!token) throw new AppError('not_found', `Connection ${sub.connectionId} has no Content Snare webhook registered`);
  const delivery = applyOverrides(loadSnareExample(trigger).delivery, overrides);
  const path = `/webhooks/contentsnare/${encodeURIComponent(sub.connectionId)}`;
  const sentAt = new Date(deps.ctx.clock.now()).toISOString();
  const res = await deps.fetch(`${deps.intakeBase}${path}/${token}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'user-agent': 'npm-run-trigger' },
    body: JSON.stringify(delivery),
    redirect: 'error',
  });
  const text = await res.text();
  let body: unknown = text;
  try {
    body = JSON.parse(text);
  } catch {
    // Not JSON: shown as text.
  }
  return {
    kind: 'url-token',
    subscriptionId: sub.id,
    event: String(delivery.event_name),
    url: `${deps.intakeBase}${path}/<token>`,
    subjectId: String(delivery.id ?? ''),
    sentAt,
    intake: { status: res.status, body },
  };
}
