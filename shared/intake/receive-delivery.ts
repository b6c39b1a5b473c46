import type { AppContext } from '../ports/app-context';
import { answerWithin } from './answer-within';
import type { DeliveryAnswer, IntakeObserver, IntakeRequest, IntakeSource } from './intake-source';
import { runIntake } from './pipeline';
import type { WebhookIntake } from './provider-intake';

export type { DeliveryAnswer } from './intake-source';

/** One delivery as the webhook route read it. */
export interface WebhookRequest {
  /** The route's path parameters. */
  params: Readonly<Record<string, string | undefined>>;
  /** Lower-case header names. */
  headers: Record<string, string | undefined>;
  /** The raw body bytes, exactly as signed. */
  body: Buffer;
}

export interface IntakeOptions {
  /** The code host gives up after 10 s: answer well before (RELIABILITY 14). */
  deadlineMs?: number;
  /** How long an attempt that finds another attempt of the same delivery in progress waits for it before answering 503. */
  busyWaitMs?: number;
  /** Hears of deliveries refused for their shape (the local console). */
  observer?: IntakeObserver;
}

const defaultDeadlineMs = 8000;
/** Long enough for a live attempt to end first (most are done in milliseconds), short enough to answer in the code host's 10 s. */
const defaultBusyWaitMs = 2000;
/** After a missed deadline, how long the answer may wait for the claim's release (8 s + this < 10 s). */
const releaseGraceMs = 500;

/**
 * One delivery of a provider's webhook route, answered within the deadline: the intake
 * pipeline (pipeline.ts) with the route's source. The transport owns the time limit; the
 * pipeline knows no clock. A source that cannot be loaded (it is read on the route's first
 * delivery) is answered 503, so that the delivery is sent again.
 */
export async function receiveWebhook(
  ctx: AppContext,
  webhook: WebhookIntake,
  req: WebhookRequest,
  options: IntakeOptions = {},
): Promise<DeliveryAnswer> {
  const request = { ...webhook.path(req.params), headers: req.headers, body: req.body };
  let source: IntakeSource<unknown>;
  try {
    source = await webhook.source(ctx);
  } catch (e) {
    return failed(ctx, request.pathId, e);
  }
  return answerInTime(ctx, source, request, options);
}

/**
 * Runs the pipeline for `source` under the code host's answer deadline. A pipeline that
 * fails, or is still running at the deadline, is answered 503: its claim is given back, so
 * the provider's (or the sweep's) redelivery is processed rather than taken for a duplicate.
 */
export async function answerInTime<V>(
  ctx: AppContext,
  source: IntakeSource<V>,
  req: IntakeRequest,
  options: IntakeOptions = {},
): Promise<DeliveryAnswer> {
  const named = source.verifier.headers(req.headers);
  const log = ctx.logger.child({
    endpointId: req.pathId,
    ...(named.ok ? { event: named.value.event, deliveryId: named.value.deliveryId } : {}),
  });
  const pipeline = { busyWaitMs: options.busyWaitMs ?? defaultBusyWaitMs, ...(options.observer ? { observer: options.observer } : {}) };
  try {
    const within = await answerWithin(options.deadlineMs ?? defaultDeadlineMs, releaseGraceMs, (signal) =>
      runIntake(ctx, source, req, signal, pipeline),
    );
    if (within.kind === 'answered' && within.value.kind === 'answered') return within.value.answer;
    ctx.metrics.count('webhook_failed', 1, { reason: 'deadline' });
    log.error('webhook delivery failed; the code host will see a 5xx and the sweep will redeliver', { error: 'deadline passed' });
    return unavailable('Intake is slow right now; the delivery will be retried');
  } catch (e) {
    return failed(ctx, req.pathId, e, log);
  }
}

function failed(ctx: AppContext, pathId: string, error: unknown, log = ctx.logger.child({ endpointId: pathId })): DeliveryAnswer {
  ctx.metrics.count('webhook_failed', 1, { reason: 'error' });
  log.error('webhook delivery failed; the code host will see a 5xx and the sweep will redeliver', { error });
  return unavailable('Intake failed; the delivery will be retried');
}

function unavailable(message: string): DeliveryAnswer {
  return { status: 503, body: { error: { code: 'unavailable', message } } };
}
