import { randomUUID } from 'node:crypto';
import { sign } from '@octokit/webhooks-methods';
import { AppError } from '../../../domain/errors';
import { applyOverrides } from '../../../domain/example-overrides';
import { secretNames, type Connection, type Subscription } from '../../../domain/model';
import { buildTriggerEvents, enqueueEvents } from '../../../dispatch/fan-out';
import { triggerCatalogOf } from '../../../ports/provider-contract';
import type { ExampleSendRequest, ExampleSent } from '../../../ports/trigger-examples';
import { ConnectionRepo } from '../../../store/connection-repo';
import { EndpointRepo } from '../../../store/endpoint-repo';
import { loadExample, type ExampleDoc } from '../triggers/example-docs';
import { mappedForQueue } from '../triggers/example-events';
import { fitExample, type ExampleDelivery } from '../triggers/fit-example';

/**
 * `npm run trigger` for a code-host subscription. A webhook subscription gets the documented
 * payload, adjusted to its repository and filters, signed with its endpoint's secret (or the
 * App's webhook secret) and POSTed to this runtime's own intake: the full path a real delivery
 * takes. A polled subscription (gists, an account's repositories, or a webhook trigger that
 * fell back to polling) has no intake to post to: its event is enqueued as the poller would.
 */
export async function sendGithubExample(request: ExampleSendRequest): Promise<ExampleSent> {
  const { ctx, sub, overrides } = request;
  const connection = await new ConnectionRepo(ctx.store).get(sub.connectionId);
  if (!connection) throw new AppError('not_found', `Subscription ${sub.id}'s connection ${sub.connectionId} is gone`);
  const original = loadExample(sub.trigger);
  // `--set path=value`: the person's changes to the documented example, before it is fitted to the subscription.
  const doc: ExampleDoc =
    overrides.length === 0
      ? original
      : original.event === null
        ? { event: null, item: applyOverrides(original.item, overrides) }
        : { event: original.event, payload: applyOverrides(original.payload, overrides) };

  const viaApp = sub.delivery === 'webhook' && sub.installationId !== undefined && doc.event !== null;
  if (sub.delivery === 'polling' || (!sub.endpointId && !viaApp) || doc.event === null) {
    return enqueueAsPoller(ctx, doc, sub, connection);
  }

  const target = await deliveryTarget(ctx, sub);
  const fitted: ExampleDelivery = fitExample(doc, sub, connection);
  // The App's webhook carries every installation's deliveries: each names its own.
  const payload = viaApp ? { ...fitted.payload, installation: { id: sub.installationId } } : fitted.payload;
  const deliveryId = randomUUID();
  // The intake dedupes on the signed bytes as well as the delivery id (the id is not signed),
  // so the same example sent again would be a replay: each send ends in its own run of
  // spaces and tabs (its delivery id's bits), which JSON ignores.
  const body = Buffer.from(`${JSON.stringify(payload)}\n${spacedNonce(deliveryId)}`, 'utf8');
  const url = request.intakeUrl(target.endpointId);
  const res = await request.fetch(url, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      'user-agent': 'GitHub-Hookshot/npm-run-trigger',
      'x-github-event': fitted.event,
      'x-github-delivery': deliveryId,
      // Signed by the library the intake verifies with (shared/providers/github/webhooks/signature.ts).
      'x-hub-signature-256': await sign(target.secret, body.toString('utf8')),
      ...target.headers,
    },
    body,
    // The intake answers; a redirect would carry the signed delivery somewhere else.
    redirect: 'error',
  });
  const answer = await answerOf(res);
  return {
    kind: 'webhook',
    subscriptionId: sub.id,
    endpointId: target.endpointId,
    url,
    event: fitted.event,
    deliveryId,
    bytes: body.length,
    intake: { status: res.status, body: answer },
  };
}

/** A polled subscription (or an example with no webhook event) has no intake to post to: its event is enqueued as the poller would. */
async function enqueueAsPoller(
  ctx: ExampleSendRequest['ctx'],
  doc: ExampleDoc,
  sub: Subscription,
  connection: Connection,
): Promise<ExampleSent> {
  const trigger = sub.trigger;
  const mapped = mappedForQueue(doc, sub, connection);
  const deliveryId = `trigger:${randomUUID()}`;
  const events = buildTriggerEvents({
    catalog: triggerCatalogOf(ctx.providers),
    connection,
    subscriptions: new Map([[sub.trigger, [sub]]]),
    mapped,
    deliveryId,
    occurredAt: new Date(ctx.clock.now()).toISOString(),
  });
  if (events.length === 0)
    throw new AppError('invalid_input', `The example for ${trigger} does not match subscription ${sub.id}'s target and filters`);
  await enqueueEvents(ctx, events);
  const reason =
    sub.note ?? `${trigger} is polled (the code host has no webhook for it): the event was put on the queue as the poller would`;
  return { kind: 'enqueued', subscriptionId: sub.id, reason, eventIds: events.map((e) => e.id) };
}

/** A run of spaces and tabs spelling the delivery id's bits: JSON ignores it, and it makes each send's signed bytes its own. */
function spacedNonce(deliveryId: string): string {
  return [...Buffer.from(deliveryId.replace(/-/g, ''), 'hex')]
    .map((b) => b.toString(2).padStart(8, '0'))
    .join('')
    .replace(/0/g, ' ')
    .replace(/1/g, '\t');
}

/** The intake's answer: JSON when it is, else the text. */
async function answerOf(res: Response): Promise<unknown> {
  const text = await res.text();
  try {
    return JSON.parse(text);
  } catch {
    // Not JSON: shown as text.
    return text;
  }
}

/** Where a webhook subscription's deliveries go and what signs them: its endpoint's hook, or the GitHub App's webhook. */
async function deliveryTarget(
  ctx: ExampleSendRequest['ctx'],
  sub: Subscription,
): Promise<{ endpointId: string; secret: string; headers: Record<string, string> }> {
  if (sub.installationId !== undefined && !sub.endpointId) {
    const secret = await ctx.githubAppSecret('webhookSecret');
    if (!secret)
      throw new AppError(
        'not_configured',
        `Subscription ${sub.id} is of a GitHub App connection: set GITHUB_APP_WEBHOOK_SECRET to sign its deliveries`,
      );
    return { endpointId: 'app', secret, headers: { 'x-github-hook-installation-target-type': 'integration' } };
  }
  const endpoint = sub.endpointId ? await new EndpointRepo(ctx.store).get(sub.endpointId) : undefined;
  if (!endpoint) throw new AppError('not_found', `Subscription ${sub.id}'s webhook endpoint ${sub.endpointId} is gone`);
  const secret = await ctx.secrets.get(secretNames.endpointSecret(endpoint.id));
  if (!secret) throw new AppError('not_found', `Webhook endpoint ${endpoint.id} has no secret stored`);
  return { endpointId: endpoint.id, secret, headers: endpoint.hookId !== undefined ? { 'x-github-hook-id': String(endpoint.hookId) } : {} };
}
