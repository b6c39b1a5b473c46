import type { AppContext } from '../ports/app-context';
import type { ConsumerQueue, InboundMessage } from '../ports';
import { type CircuitBoard, circuitKey } from './circuit-board';
import { type Addresses, type Aside, addressesOf, circuitKeysOf, type SetAsideOptions, sendAside, setAside } from './deferral';
import { EventProgress } from './event-progress';
import { type EventInHand, followUpStage, gateStage, logOnlyStage, readStage } from './event-stages';
import { jobKindOf } from './job-message';
import { singleLane, type Lane } from './lane';
import { withTriesCounted } from './redrive-policy';
import { tenantOf } from './tenant';
import { admitStage, claimStage, postStage } from './post-stage';
import type { ProviderWork } from './provider-work';
import { settle, type MessageFate, type Settlement } from './settlement';
import { consultSharedPace, tellSharedPace } from './shared-pace';

export interface BatchResult {
  /** Messages to leave on the queue (SQS `batchItemFailures`); the others are done. */
  failedMessageIds: string[];
}

export interface DispatchOptions {
  /** The providers' jobs and follow-ups (the wiring's list); without them every message is a trigger event. */
  work: ProviderWork;
  /** The lane the messages came from; by default the one lane of the local runtime (10 s limit, retried in place). */
  lane?: Lane;
  /** The circuits, one per agent runtime and agent, shared by every attempt of the process or container; without them every event is tried. */
  circuits?: CircuitBoard;
  /**
   * The wait for an untried agent's first answer (`untriedWaitMs`), in real time: how long a
   * POST takes is the runtime's, not the injected clock's. Tests that hold POSTs by hand give
   * one that ends when they say.
   */
  untriedWait?: (ms: number) => Promise<void>;
}

const realWait = (ms: number) =>
  new Promise<void>((resolve) => {
    setTimeout(resolve, ms).unref();
  });

/**
 * How long the events held behind an untried agent's first one wait for its answer at most:
 * a slow answer (agent-pace.ts) does not hold them longer.
 */
export const untriedWaitMs = 2_000;

/**
 * Delivers a batch of queued trigger events to the agent runtime, each independently (see
 * `dispatchMessage`); the batch is done when each of its events is, and no event waits for
 * another longer than its lane's POST limit. The events whose agent runtime's circuit is open,
 * or whose agent answers slowly, are set aside together (deferral.ts) before any work of their
 * own, and their send does not hold up the others. Of an agent this process or container knows
 * nothing of yet, one event goes first and the others follow its answer, set aside again by
 * what it showed (deferred behind an open circuit), or go to the slow lane when no answer came
 * within `untriedWaitMs`: a runtime that is down, throttling or slow costs one POST of the
 * batch, not all of them. On a lane with a slow lane beside it, that one POST is one for every
 * container: of an agent measured nowhere yet, one container probes and tells the others what
 * it found, and the others send its events to the slow lane meanwhile (shared-pace.ts).
 */
export async function dispatchBatch(
  ctx: AppContext,
  messages: readonly InboundMessage[],
  consumer: ConsumerQueue,
  options: DispatchOptions,
): Promise<BatchResult> {
  const lane = options.lane ?? singleLane(ctx, consumer);
  return { failedMessageIds: await dispatchPart(ctx, messages, consumer, { ...options, lane }) };
}

/** `dispatchBatch`'s first look at its messages, the shared pace asked; answers the ids of those that failed. */
async function dispatchPart(
  ctx: AppContext,
  messages: readonly InboundMessage[],
  consumer: ConsumerQueue,
  options: DispatchOptions & { lane: Lane },
): Promise<string[]> {
  const { circuits, lane } = options;
  // Each message's agent, read once for the pace and the circuits; nothing to read without circuits or a runtime.
  const url = circuits ? ctx.config.agentRuntimeUrl : undefined;
  const addresses: Addresses = url !== undefined ? addressesOf(messages, options.work.jobs) : new Map();
  if (!(lane.overflow && circuits && url !== undefined))
    return workPart(ctx, messages, consumer, options, addresses, { holdUntried: true });
  // On a lane with a slow lane beside it, the agents this container has not measured are judged by what the others
  // found. An agent the table is asked about holds its own events only: the others' go on at once.
  const consulted = consultSharedPace(ctx, circuits, circuitKeysOf(url, addresses));
  const asks = (m: InboundMessage) => {
    const address = addresses.get(m);
    return address !== undefined && consulted.asking.has(circuitKey(url, address.agentId));
  };
  const waiting = messages.filter(asks);
  const ready = waiting.length === 0 ? messages : messages.filter((m) => !asks(m));
  const parts = await Promise.all([
    workPart(ctx, ready, consumer, options, addresses, { holdUntried: true, shared: consulted.known }),
    waiting.length === 0
      ? []
      : consulted.asked.then((asked) => workPart(ctx, waiting, consumer, options, addresses, { holdUntried: true, shared: asked })),
    consulted.told.then(() => []),
  ]);
  return parts.flat();
}

/** Sets aside what `setAside` says of `messages`, works the rest, and each agent's held events after its first answer; answers the ids of those that failed. */
async function workPart(
  ctx: AppContext,
  messages: readonly InboundMessage[],
  consumer: ConsumerQueue,
  options: DispatchOptions & { lane: Lane },
  addresses: Addresses,
  look: SetAsideOptions,
): Promise<string[]> {
  const { circuits, lane } = options;
  const aside = setAside(ctx, messages, lane, circuits, addresses, look);
  const work = (m: InboundMessage) => dispatchMessage(ctx, m, consumer, options);
  const fates = new Map(aside.rest.map((m) => [m.messageId, work(m)]));
  const failedOf = async (list: readonly InboundMessage[], fate: (m: InboundMessage) => Promise<MessageFate> | undefined) =>
    (await Promise.all(list.map(async (m) => ((await fate(m)) === 'failed' ? [m.messageId] : [])))).flat();
  const waited = aside.firsts.length > 0 ? (options.untriedWait ?? realWait)(untriedWaitMs).then(() => false) : undefined;
  // Each agent's held events wait for its own first answer, or the wait's end.
  const held = async (first: Aside['firsts'][number]) => {
    const answered = await Promise.race([fates.get(first.messageId)?.then(() => true) ?? true, waited ?? true]);
    // The probe's finding goes to the other containers once its POST is answered (or passes the limit), timed on
    // the POST alone: a container slow to reach the POST (a busy table) does not make the agent slow for everyone.
    const told = first.probe ? fates.get(first.messageId)?.then(() => tellProbed(ctx, circuits, first.key)) : undefined;
    // Its others go to the slow lane, if there is one, when no answer came.
    const others =
      first.held.length === 0
        ? []
        : workPart(ctx, first.held, consumer, options, addresses, {
            holdUntried: false,
            slow: answered ? undefined : new Set([first.key]),
          });
    return (await Promise.all([others, told]))[0];
  };
  const parts = await Promise.all([
    failedOf(aside.rest, (m) => fates.get(m.messageId)),
    // A send that failed leaves its events to the stages, which defer each on its own or post it here.
    sendAside(ctx, lane, aside).then((unsent) => failedOf(unsent, work)),
    ...aside.firsts.map(held),
  ]);
  return parts.flat();
}

/** Tells the other containers what the probe's POST showed of the agent's pace; nothing when it made no POST. */
async function tellProbed(ctx: AppContext, circuits: CircuitBoard | undefined, key: string): Promise<void> {
  const slow = circuits?.pace(key).latestSlow();
  if (circuits && slow !== undefined) await tellSharedPace(ctx, circuits, key, slow);
}

/**
 * Works one queue message: a provider's job (provider-work.ts), or a trigger event taken
 * through the stages (read, gates, follow-ups, log-only, circuit, claim, POST: event-stages.ts
 * and post-stage.ts), each of which goes on or settles the message; settlement.ts then
 * carries out what it settled on (delete, delayed copy, postponement, dead letter, history).
 * Something unexpected thrown on the way is tried again with the lane's backoff. Its receive
 * count is the event's tries: those a retry's copy carried, plus its own receives.
 */
export async function dispatchMessage(
  ctx: AppContext,
  received: InboundMessage,
  consumer: ConsumerQueue,
  options: DispatchOptions,
): Promise<MessageFate> {
  const m = withTriesCounted(received);
  const lane = options.lane ?? singleLane(ctx, consumer);
  const job = jobKindOf(m.body, options.work.jobs);
  if (job) return settle(ctx, lane, m, await job.work(ctx, m, lane).catch(unexpected(ctx, m, lane)), ctx.logger);
  const read = await readStage(ctx, m).catch(unexpected(ctx, m, lane));
  if (read.kind !== 'continue') return settle(ctx, lane, m, read, ctx.logger);
  const { event } = read.value;
  const a: EventInHand = {
    ctx,
    m: { ...m, group: tenantOf(event) },
    lane,
    read: read.value,
    event,
    progress: new EventProgress(ctx, event, m),
    log: ctx.logger.child({
      eventId: event.id,
      trigger: event.trigger,
      subscriptionId: event.subscriptionId,
      deliveryId: event.deliveryId,
      messageId: m.messageId,
      ...(lane.name === 'main' ? {} : { lane: lane.name }),
    }),
  };
  // An event that may be posted has its history read from the start, with the batch's others in one call (the
  // claims that come first answer in turns of their own); one that then makes no POST costs that read.
  if (ctx.config.agentRuntimeUrl !== undefined) a.progress.readAhead();
  const settlement = await deliverEvent(a, options).catch(unexpected(ctx, m, lane));
  return settle(ctx, lane, a.m, settlement, a.log, a.progress);
}

async function deliverEvent(a: EventInHand, options: DispatchOptions): Promise<Settlement> {
  const stopped = (await gateStage(a)) ?? (await followUpStage(a, options.work.followUps));
  if (stopped) return stopped;
  const url = logOnlyStage(a);
  if (url.kind !== 'continue') return url;
  const key = circuitKey(url.value, a.event.agentId);
  const circuit = options.circuits?.for(key);
  const admitted = admitStage(a, circuit);
  if (admitted.kind !== 'continue') return admitted;
  const claim = await claimStage(a, circuit, admitted.value);
  if (claim.kind !== 'continue') return claim;
  return postStage(a, url.value, { circuit, pace: options.circuits?.pace(key) }, admitted.value, claim.value);
}

function unexpected(ctx: AppContext, m: InboundMessage, lane: Lane): (e: unknown) => Settlement {
  return (e) => {
    ctx.logger.error('dispatch failed unexpectedly', { messageId: m.messageId, error: e });
    return { kind: 'failed', reason: 'unexpected failure', delaySeconds: lane.backoff(m.receiveCount) };
  };
}
