import type { AppContext } from '../ports/app-context';
import { deliverStage } from './deliver-stage';
import type { ClaimIdentity, DeliveryAnswer, IntakeObserver, IntakeRequest, IntakeSource, Refusal, Verdict } from './intake-source';
import { mapStage } from './map-stage';

/** What the pipeline ended with: an answer, or stopped because the transport answered without it. */
export type IntakeOutcome = { kind: 'answered'; answer: DeliveryAnswer } | { kind: 'abandoned' };

export interface PipelineOptions {
  /** How long an attempt that finds another attempt of the same delivery in progress waits for it before answering 503. */
  busyWaitMs: number;
  observer?: IntakeObserver;
}

/**
 * One delivery of any source, in a fixed order: required headers, verification on the raw
 * bytes, JSON, the source's own events (`ping`), whose it is, mapping, then the claim, the
 * route, fan-out and done (deliver-stage.ts). Knows no clock: `signal` says the transport has
 * answered already, and the pipeline stops at its next step, giving back what it holds.
 * A source is a verifier, a router and a mapping (intake-source.ts); everything else is shared.
 */
export async function runIntake<V>(
  ctx: AppContext,
  source: IntakeSource<V>,
  req: IntakeRequest,
  signal: AbortSignal,
  options: PipelineOptions,
): Promise<IntakeOutcome> {
  let log = ctx.logger.child({ endpointId: req.pathId });
  const refuse = (r: Refusal): IntakeOutcome => {
    ctx.metrics.count('webhook_refused', 1, { reason: r.reason });
    log.warn('webhook delivery refused', { reason: r.reason, status: r.answer.status });
    return { kind: 'answered', answer: r.answer };
  };
  const headers = source.verifier.headers(req.headers);
  if (!headers.ok) return refuse(headers.refusal);
  log = log.child({ event: headers.value.event, deliveryId: headers.value.deliveryId });
  const verified = await source.verifier.verify(req, headers.value);
  if (!verified.ok) return refuse(verified.refusal);
  const payload = parseJson(req.body);
  if (!payload.ok) return refuse(payload.refusal);
  const own = await source.verifier.answerEvent?.(verified.value, headers.value, log, payload.value, {
    body: req.body,
    signal,
    busyWaitMs: options.busyWaitMs,
  });
  if (own) return { kind: 'answered', answer: own };
  const tenant = await source.router.tenant(verified.value, payload.value);
  if (!tenant.ok) return refuse(tenant.refusal);
  const input = { req, headers: headers.value, payload: payload.value, tenant: tenant.value };
  const mapped =
    'mapper' in source
      ? await source.mapper.map(
          { verified: verified.value, tenant: tenant.value, headers: headers.value, payload: payload.value, log },
          signal,
        )
      : mapStage(ctx, log, options.observer, input, source.mapping);
  if (mapped.kind === 'answered') return mapped;
  if (signal.aborted) return { kind: 'abandoned' };
  const identity: ClaimIdentity | undefined = 'identity' in mapped ? (mapped.identity as ClaimIdentity | undefined) : undefined;
  return deliverStage(
    ctx,
    log,
    {
      ...input,
      verified: verified.value,
      mapped: mapped.mapped,
      router: source.router,
      busyWaitMs: options.busyWaitMs,
      ...(identity ? { identity } : {}),
    },
    signal,
  );
}

function parseJson(body: Buffer): Verdict<unknown> {
  try {
    return { ok: true, value: JSON.parse(body.toString('utf8')) as unknown };
  } catch {
    return {
      ok: false,
      refusal: {
        reason: 'bad_json',
        answer: { status: 400, body: { error: { code: 'invalid_input', message: 'Body is not valid JSON' } } },
      },
    };
  }
}
