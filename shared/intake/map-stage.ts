import type { MappedEvent } from '../domain/mapping/types';
import type { Logger } from '../observability/logger';
import type { AppContext } from '../ports/app-context';
import type {
  ConnectionMapped,
  DeliveryAnswer,
  DeliveryHeaders,
  IntakeObserver,
  IntakeRequest,
  PayloadMapping,
  Tenant,
} from './intake-source';

export type { ConnectionMapped } from './intake-source';

/** One connection's trigger occurrences of the delivery. */
export type MapOutcome = { kind: 'mapped'; mapped: ConnectionMapped[] } | { kind: 'answered'; answer: DeliveryAnswer };

const nothingAccepted: DeliveryAnswer = { status: 200, body: { ok: true, accepted: 0 } };

/**
 * The delivery's trigger occurrences, by the source's pure `mapping`. A body whose shape does
 * not fit its event is answered 2xx like an ignored one (a 4xx/5xx would only make the
 * provider count a failure and retry the same bytes), but never silently: counted
 * `webhook_rejected_shape` by event, logged at WARN with the keys that did not fit, and told to
 * the observer. Should the provider add a field to an event under a name another event uses,
 * its trigger stops here, in plain view.
 */
export function mapStage(
  ctx: Pick<AppContext, 'metrics'>,
  log: Logger,
  observer: IntakeObserver | undefined,
  input: { req: IntakeRequest; headers: DeliveryHeaders; payload: unknown; tenant: Tenant },
  mapping: PayloadMapping,
): MapOutcome {
  const { event, deliveryId } = input.headers;
  const body = typeof input.payload === 'object' && input.payload !== null && !Array.isArray(input.payload) ? input.payload : {};
  const misfit = mapping.misfitKeys(event, body as Record<string, unknown>);
  if (misfit.length > 0) {
    ctx.metrics.count('webhook_rejected_shape', 1, { event });
    log.warn('webhook body does not fit its event; refused', { deliveryId, event, offendingKeys: misfit });
    observer?.refused?.({ pathId: input.req.pathId, deliveryId, event, reason: 'shape', keys: misfit });
    return { kind: 'answered', answer: nothingAccepted };
  }
  // Mapping reads the connected account only for mentions: one mapping per distinct account, shared by its connections.
  const byAccount = new Map<string, MappedEvent[]>();
  const mapped: ConnectionMapped[] = [];
  for (const connection of input.tenant.connections) {
    const account = connection.accountLogin.toLowerCase();
    let found = byAccount.get(account);
    if (found === undefined) {
      found = mapFor(log, mapping, event, input.payload, connection.accountLogin);
      byAccount.set(account, found);
    }
    if (found.length > 0) mapped.push({ connection, mapped: found });
  }
  if (mapped.length > 0) return { kind: 'mapped', mapped };
  ctx.metrics.count('webhook_ignored');
  log.info('webhook delivery maps to no trigger');
  return { kind: 'answered', answer: nothingAccepted };
}

function mapFor(log: Logger, mapping: PayloadMapping, event: string, payload: unknown, accountLogin: string): MappedEvent[] {
  try {
    return mapping.map({ event, payload, accountLogin });
  } catch (e) {
    // A payload the mapping cannot read is not a trigger; a 4xx/5xx would only make the provider count a failure.
    log.error('mapping failed; delivery dropped', { error: e });
    return [];
  }
}
