import * as z from 'zod';
import type { InboundMessage, OutgoingMessage } from '../ports';
import type { AppContext } from '../ports/app-context';
import { type CircuitBoard, circuitKey } from './circuit-board';
import { jobKindOf } from './job-message';
import type { Lane } from './lane';
import type { JobKind } from './provider-work';
import { queueDelaySeconds } from './settlement';
import type { SharedPace } from './shared-pace';
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

/** What deferral reads of each trigger event's message (none for a job, or a message it cannot read): read once per batch. */
export type Addresses = ReadonlyMap<InboundMessage, z.infer<typeof addressSchema>>;

/** The addresses of the trigger events among `messages`, each body parsed once for the circuits and the pace. */
export function addressesOf(messages: readonly InboundMessage[], jobs: readonly JobKind[]): Addresses {
  const addresses = new Map<InboundMessage, z.infer<typeof addressSchema>>();
  for (const m of messages) {
    const address = jobKindOf(m.body, jobs) ? undefined : addressOf(m.body);
    if (address) addresses.set(m, address);
  }
  return addresses;
}

/** A message set aside, and the copy that takes it off this lane. */
interface AsideCopy {
  m: InboundMessage;
  copy: OutgoingMessage;
}

/**
 * A batch split before any work per event: the events deferred (their agent runtime's circuit
 * turns attempts away: back on the lane's queue, delayed), those diverted (their agent answers
 * slowly: to the slow lane, at once), and the rest, to work now.
 */
export interface Aside {
  deferred: AsideCopy[];
  diverted: AsideCopy[];
  rest: InboundMessage[];
  /**
   * The first event (in `rest`) of each agent nothing is known of here yet, or that this
   * container probes for the others (shared-pace.ts), with the agent's other events, held: they
   * are worked once that one is answered, so that a runtime that is down, throttling or slow
   * costs one POST of the batch, not all of them. Each agent's wait is its own.
   */
  firsts: Array<{ key: string; messageId: string; probe: boolean; held: InboundMessage[] }>;
}

export interface SetAsideOptions {
  /** Hold back an untried agent's events after its first (the batch's first look); not when working those held. */
  holdUntried: boolean;
  /** Agents (circuit keys) whose first answer did not come within the wait: slow, whatever their pace says yet. */
  slow?: ReadonlySet<string>;
  /** What to go by for the agents this container has not measured enough itself (shared-pace.ts). */
  shared?: ReadonlyMap<string, SharedPace>;
}

/**
 * The circuits and paces asked before any work per event. An event whose circuit turns attempts
 * away (open, or half-open with its probe out) is deferred; a half-open circuit's one probe goes
 * on to the stages, which take it as the probe. On a lane with a slow lane beside it, an event
 * whose agent's recent answers were slow (agent-pace.ts), or whose agent the other containers
 * found slow or are probing right now (`options.shared`, read before: shared-pace.ts), is
 * diverted there without a POST here: its answer would hold this batch's execution, and every
 * other tenant's events waiting for one, for as long as it takes. Neither writes a history row
 * (neither is an attempt).
 */
export function setAside(
  ctx: AppContext,
  messages: readonly InboundMessage[],
  lane: Lane,
  circuits: CircuitBoard | undefined,
  addresses: Addresses,
  options: SetAsideOptions = { holdUntried: true },
): Aside {
  const url = ctx.config.agentRuntimeUrl;
  const aside: Aside = { deferred: [], diverted: [], rest: [], firsts: [] };
  if (!circuits || url === undefined) return { ...aside, rest: [...messages] };
  const now = ctx.clock.now();
  const allowance = new Map<string, number>();
  const firsts = new Map<string, Aside['firsts'][number]>();
  for (const m of messages) {
    const address = addresses.get(m);
    if (!address) {
      aside.rest.push(m);
      continue;
    }
    const key = circuitKey(url, address.agentId);
    const circuit = circuits.for(key);
    const left = allowance.get(key) ?? circuit.allowance();
    // The received message's id: unique within the batch even when two copies of one event are in it.
    const copy = { id: m.messageId, body: m.body, group: tenantOf(address) };
    if (left <= 0) {
      allowance.set(key, 0);
      const delaySeconds = queueDelaySeconds(deferralSeconds(circuit.waitsUntil() - now, m.messageId));
      aside.deferred.push({ m, copy: { ...copy, delaySeconds } });
      continue;
    }
    allowance.set(key, left - 1);
    const closed = left === Number.POSITIVE_INFINITY;
    const shared = options.shared?.get(key);
    if (lane.overflow && closed && (options.slow?.has(key) || circuits.pace(key).isSlow() || shared === 'slow' || shared === 'elsewhere')) {
      aside.diverted.push({ m, copy: { ...copy, delaySeconds: 0 } });
      continue;
    }
    if (options.holdUntried && closed && (circuit.untried() || shared === 'probe')) {
      const first = firsts.get(key);
      if (first) {
        first.held.push(m);
        continue;
      }
      const made = { key, messageId: m.messageId, probe: shared === 'probe', held: [] };
      firsts.set(key, made);
      aside.firsts.push(made);
    }
    aside.rest.push(m);
  }
  return aside;
}

/**
 * Sends what was set aside, each part in one send (SQS: one SendMessageBatch call per 10),
 * both at once; answers the messages whose send failed, which the caller leaves to the stages
 * (they defer each on its own, or post it here): none is lost, and a copy sent twice is posted
 * once (the claim per event id).
 */
export async function sendAside(ctx: AppContext, lane: Lane, aside: Aside): Promise<InboundMessage[]> {
  const parts = [
    { copies: aside.deferred, to: lane.queue, metric: 'dispatch_deferred', what: 'agent runtime circuit is open; events deferred' },
    {
      copies: aside.diverted,
      to: lane.overflow,
      metric: 'dispatch_slow_agent',
      what: "agent runtime's recent answers were slow; events moved to the slow lane",
    },
  ];
  const unsent = await Promise.all(
    parts.map(async ({ copies, to, metric, what }) => {
      if (copies.length === 0 || !to) return copies.map((c) => c.m);
      try {
        await to.sendBatch(copies.map((c) => c.copy));
      } catch (e) {
        ctx.logger.warn('could not set the events aside together; each is worked on its own', { events: copies.length, what, error: e });
        return copies.map((c) => c.m);
      }
      ctx.metrics.count(metric, copies.length);
      ctx.logger.info(what, { events: copies.length, ...(lane.name === 'main' ? {} : { lane: lane.name }) });
      return [];
    }),
  );
  return unsent.flat();
}

/** The circuit keys of the trigger events of a batch (what `setAside` reads of each). */
export function circuitKeysOf(url: string, addresses: Addresses): string[] {
  return [...addresses.values()].map((address) => circuitKey(url, address.agentId));
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
