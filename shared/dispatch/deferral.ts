import * as z from 'zod';
import type { InboundMessage, OutgoingMessage } from '../ports';
import type { AppContext } from '../ports/app-context';
import { type CircuitBoard, circuitKey } from './circuit-board';
import { jobKindOf } from './job-message';
import type { Lane } from './lane';
import type { JobKind } from './provider-work';
import { queueDelaySeconds } from './settlement';
import { tenantOf } from './tenant';

/**
 * Seconds a deferred event waits: until its circuit lets attempts go again, spread over a few
 * seconds by its message id, so that the events held while it was open do not all come back
 * in the same instant.
 */
export function deferralSeconds(waitMs: number, messageId: string): number {
  return waitMs / 1000 + (messageId.charCodeAt(messageId.length - 1) % 5);
}

/**
 * What deferral reads of a message: the fields its circuit and its group come from. The event
 * is read in full (and checked) when it comes back; a claim-check pointer names no agent and
 * is left to the stages.
 */
const addressSchema = z.object({ id: z.string().min(1), agentId: z.string().min(1), connectionId: z.string().min(1) });

/** Messages set aside because their agent runtime's circuit is open, and those left to work now. */
export interface Deferral {
  /** Sent back to the lane's queue as delayed copies: done, nothing else to do for them. */
  deferred: InboundMessage[];
  rest: InboundMessage[];
}

/**
 * The circuits asked before any work per event: the events of a batch whose agent runtime's
 * circuit turns attempts away (open, or half-open with its probe out) go back to the lane's
 * queue as delayed copies in one send (SQS: one SendMessageBatch call per 10), with no read of
 * the store, no history row (a deferral is not an attempt) and no POST. A half-open circuit
 * lets its one probe through to the stages, which take it as the probe. When the send fails,
 * every event is left to the stages, which defer each on its own or retry it in place: none is
 * lost, and a copy sent twice is posted once (the claim per event id).
 */
export async function deferOpenCircuits(
  ctx: AppContext,
  messages: readonly InboundMessage[],
  lane: Lane,
  circuits: CircuitBoard | undefined,
  jobs: readonly JobKind[],
): Promise<Deferral> {
  const url = ctx.config.agentRuntimeUrl;
  if (!circuits || url === undefined) return { deferred: [], rest: [...messages] };
  const now = ctx.clock.now();
  const allowance = new Map<string, number>();
  const deferred: Array<{ m: InboundMessage; copy: OutgoingMessage }> = [];
  const rest: InboundMessage[] = [];
  for (const m of messages) {
    const address = jobKindOf(m.body, jobs) ? undefined : addressOf(m.body);
    if (!address) {
      rest.push(m);
      continue;
    }
    const key = circuitKey(url, address.agentId);
    const circuit = circuits.for(key);
    const left = allowance.get(key) ?? circuit.allowance();
    if (left > 0) {
      allowance.set(key, left - 1);
      rest.push(m);
      continue;
    }
    allowance.set(key, 0);
    const delaySeconds = queueDelaySeconds(deferralSeconds(circuit.waitsUntil() - now, m.messageId));
    // The received message's id: unique within the batch even when two copies of one event are in it.
    deferred.push({ m, copy: { id: m.messageId, body: m.body, group: tenantOf(address), delaySeconds } });
  }
  if (deferred.length === 0) return { deferred: [], rest };
  try {
    await lane.queue.sendBatch(deferred.map((d) => d.copy));
  } catch (e) {
    ctx.logger.warn('could not defer the events of open circuits together; each is deferred on its own', {
      events: deferred.length,
      error: e,
    });
    return { deferred: [], rest: [...messages] };
  }
  ctx.metrics.count('dispatch_deferred', deferred.length);
  ctx.logger.info('agent runtime circuit is open; events deferred', {
    events: deferred.length,
    ...(lane.name === 'main' ? {} : { lane: lane.name }),
  });
  return { deferred: deferred.map((d) => d.m), rest };
}

function addressOf(body: string): z.infer<typeof addressSchema> | undefined {
  let value: unknown;
  try {
    value = JSON.parse(body);
  } catch {
    return undefined;
  }
  const parsed = addressSchema.safeParse(value);
  return parsed.success ? parsed.data : undefined;
}
