import { snareHookTokenName } from '../snare-hook';
import { AppError } from '../../../domain/errors';
import type { SnareTriggerId } from '../../../domain/triggers';
import { loadSnareExample } from './examples';
import { applyOverrides } from '../../../domain/example-overrides';
import type { ExampleSendRequest, ExampleSent } from '../../../ports/trigger-examples';

/**
 * `npm run trigger -- contentsnare.<event>`: the documented delivery (with `--set` changes)
 * POSTed to this runtime's intake at the connection's hook URL, as the service would post it.
 * The intake reads the record it names back at the service: under `npm run dev` the
 * simulated service holds the examples' records, so it is confirmed; against the real
 * service, name a record of your account (`--set id=req_...`), or nothing is dispatched.
 */
export async function sendSnareExample({ ctx, fetch, intakeUrl, sub, overrides }: ExampleSendRequest): Promise<ExampleSent> {
  const trigger = sub.trigger as SnareTriggerId;
  // The collection service's hook is under the same base as the code host's.
  const intakeBase = intakeUrl('x').replace(/\/webhooks\/github\/x$/, '');
  const token = await ctx.secrets.get(snareHookTokenName(sub.connectionId));
  if (!token) throw new AppError('not_found', `Connection ${sub.connectionId} has no Content Snare webhook registered`);
  const delivery = applyOverrides(loadSnareExample(trigger).delivery, overrides);
  const path = `/webhooks/contentsnare/${encodeURIComponent(sub.connectionId)}`;
  const sentAt = new Date(ctx.clock.now()).toISOString();
  const res = await fetch(`${intakeBase}${path}/${token}`, {
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
    url: `${intakeBase}${path}/<token>`,
    subjectId: String(delivery.id ?? ''),
    sentAt,
    intake: { status: res.status, body },
  };
}
