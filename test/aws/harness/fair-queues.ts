import { fauxqsSqsModule } from './fauxqs-module';

/**
 * SQS fair queues, as AWS describes them ("How Amazon SQS fair queues work"), over fauxqs,
 * whose standard queues drop a message's MessageGroupId and serve first in, first out:
 *
 * - A tenant is a MessageGroupId; a message without one is a tenant of its own.
 * - A tenant is noisy when its in-flight messages are more than 10% of the queue's and at
 *   least 30 (concurrency share), or when its share of the consumers' recent processing time
 *   (receive to delete, the last minute, and the time of those still in flight) is more than
 *   10% (processing-time share).
 * - A receive serves quiet tenants' messages first, whenever there are any; then the noisy
 *   tenants', the one with the fewest in flight first. Nothing is dropped or held back: with no
 *   quiet message ready, a receive gets noisy ones as usual.
 *
 * A standard queue keeps its messages in no order anyway, so reordering its ready messages is
 * within what SQS promises. Applied to every standard queue of the process, as AWS makes every
 * standard queue fair once its messages carry a group.
 */

/** A ready message as the ordering sees it. */
export interface ReadyMessage {
  group?: string;
}

export interface FairShares {
  /** In-flight messages by tenant. */
  inFlight: ReadonlyMap<string, number>;
  /** Recent processing time by tenant (ms). */
  processingMs: ReadonlyMap<string, number>;
}

/** AWS's thresholds (approximate there: SQS is a distributed system). */
export const fairQueueThresholds = { concurrencyShare: 0.1, minInFlight: 30, processingShare: 0.1, recentMs: 60_000 } as const;

/** The tenants noisy by either share. */
export function noisyTenants(shares: FairShares): Set<string> {
  const noisy = new Set<string>();
  const inFlight = sum(shares.inFlight.values());
  for (const [tenant, n] of shares.inFlight)
    if (n >= fairQueueThresholds.minInFlight && n > fairQueueThresholds.concurrencyShare * inFlight) noisy.add(tenant);
  const busy = sum(shares.processingMs.values());
  for (const [tenant, ms] of shares.processingMs) if (busy > 0 && ms > fairQueueThresholds.processingShare * busy) noisy.add(tenant);
  return noisy;
}

/**
 * The ready messages in the order a fair queue serves them: quiet tenants' first, in the order
 * they came; then each noisy tenant's, the one with the fewest in flight first. Stable within a
 * tenant.
 */
export function fairOrder<M extends ReadyMessage>(ready: readonly M[], shares: FairShares): M[] {
  const noisy = noisyTenants(shares);
  if (noisy.size === 0) return [...ready];
  const quiet: M[] = [];
  const byNoisy = new Map<string, M[]>();
  for (const m of ready) {
    if (m.group === undefined || !noisy.has(m.group)) quiet.push(m);
    else {
      const own = byNoisy.get(m.group) ?? [];
      own.push(m);
      byNoisy.set(m.group, own);
    }
  }
  const load = (tenant: string) => shares.inFlight.get(tenant) ?? 0;
  const noisyInTurn = [...byNoisy.keys()].sort((a, b) => load(a) - load(b));
  return [...quiet, ...noisyInTurn.flatMap((t) => byNoisy.get(t) ?? [])];
}

function sum(values: Iterable<number>): number {
  let total = 0;
  for (const v of values) total += v;
  return total;
}

// ---- Over fauxqs's standard queues ----

interface FauxMessage {
  body: string;
  messageGroupId?: string;
}
interface FauxQueue {
  messages: FauxMessage[];
  inflightMessages: Map<string, { message: FauxMessage }>;
  isFifo(): boolean;
  processTimers(): void;
  enqueue(msg: FauxMessage): void;
  dequeue(maxCount: number, visibility?: number, dlq?: unknown): Array<{ ReceiptHandle: string }>;
  deleteMessage(receiptHandle: string): boolean;
}
interface FauxRouter {
  handle(request: { headers: Record<string, unknown>; body: unknown }, reply: unknown): Promise<unknown>;
}

/** Per queue: when each in-flight message was received, and the processing times of the last minute. */
interface Timing {
  received: Map<string, { group: string; at: number }>;
  done: Array<{ group: string; ms: number; at: number }>;
}
const timings = new WeakMap<object, Timing>();
/** The groups of the messages of the send being handled, by body (fauxqs passes a standard queue's message on without them). */
let sending: Map<string, string[]> | undefined;
let installed: Promise<void> | undefined;

/** Makes every standard queue of this process's fauxqs fair (once; later calls wait for the first). */
export function serveFairly(): Promise<void> {
  installed ??= install();
  return installed;
}

async function install(): Promise<void> {
  const store = await fauxqsSqsModule<{ SqsQueue: { prototype: FauxQueue } }>('sqsStore.js');
  const router = await fauxqsSqsModule<{ SqsRouter: { prototype: FauxRouter } }>('sqsRouter.js');
  const queue = store.SqsQueue.prototype;
  const handle = router.SqsRouter.prototype.handle;
  router.SqsRouter.prototype.handle = function (this: FauxRouter, request, reply) {
    sending = groupsOfSend(request.headers['x-amz-target'], request.body);
    try {
      // The action runs to its enqueues before its first await: the groups are read within this call.
      return handle.call(this, request, reply);
    } finally {
      sending = undefined;
    }
  };
  const enqueue = queue.enqueue;
  queue.enqueue = function (this: FauxQueue, msg) {
    if (!this.isFifo() && msg.messageGroupId === undefined) {
      const group = sending?.get(msg.body)?.shift();
      if (group !== undefined) msg.messageGroupId = group;
    }
    enqueue.call(this, msg);
  };
  const dequeue = queue.dequeue;
  queue.dequeue = function (this: FauxQueue, maxCount, visibility, dlq) {
    if (this.isFifo()) return dequeue.call(this, maxCount, visibility, dlq);
    this.processTimers();
    const timing = timingOf(this);
    const now = Date.now();
    // With no more ready than asked for, every message is served anyway: no order to choose.
    if (this.messages.length > maxCount) {
      const ready = this.messages.map((m) => ({ m, group: m.messageGroupId }));
      this.messages = fairOrder(ready, sharesOf(this, timing, now)).map((r) => r.m);
    }
    const out = dequeue.call(this, maxCount, visibility, dlq);
    for (const r of out) {
      const m = this.inflightMessages.get(r.ReceiptHandle)?.message;
      if (m) timing.received.set(r.ReceiptHandle, { group: tenantOf(m, r.ReceiptHandle), at: now });
    }
    return out;
  };
  const deleteMessage = queue.deleteMessage;
  queue.deleteMessage = function (this: FauxQueue, receiptHandle) {
    const timing = timings.get(this);
    const began = timing?.received.get(receiptHandle);
    if (timing && began) {
      timing.received.delete(receiptHandle);
      timing.done.push({ group: began.group, ms: Date.now() - began.at, at: Date.now() });
    }
    return deleteMessage.call(this, receiptHandle);
  };
}

function timingOf(q: object): Timing {
  let t = timings.get(q);
  if (!t) {
    t = { received: new Map(), done: [] };
    timings.set(q, t);
  }
  return t;
}

function tenantOf(m: FauxMessage, receiptHandle: string): string {
  return m.messageGroupId ?? `(alone) ${receiptHandle}`;
}

/** The shares now: in flight by tenant, and processing time of the last minute (those still in flight count their time so far). */
function sharesOf(q: FauxQueue, timing: Timing, now: number): FairShares {
  const inFlight = new Map<string, number>();
  const processingMs = new Map<string, number>();
  const add = (map: Map<string, number>, k: string, v: number) => map.set(k, (map.get(k) ?? 0) + v);
  for (const [handle, entry] of q.inflightMessages) add(inFlight, tenantOf(entry.message, handle), 1);
  // Received messages that went back to the queue (visibility passed) no longer take a consumer's time.
  for (const [handle, r] of timing.received) {
    if (q.inflightMessages.has(handle)) add(processingMs, r.group, now - r.at);
    else timing.received.delete(handle);
  }
  timing.done = timing.done.filter((d) => now - d.at <= fairQueueThresholds.recentMs);
  for (const d of timing.done) add(processingMs, d.group, d.ms);
  return { inFlight, processingMs };
}

/** The groups a SendMessage or SendMessageBatch request gives its messages, by body. */
function groupsOfSend(target: unknown, body: unknown): Map<string, string[]> | undefined {
  const action = String(target ?? '').replace(/^AmazonSQS\./, '');
  if (action !== 'SendMessage' && action !== 'SendMessageBatch') return undefined;
  const input = (body ?? {}) as {
    MessageBody?: string;
    MessageGroupId?: string;
    Entries?: Array<{ MessageBody?: string; MessageGroupId?: string }>;
  };
  const entries = action === 'SendMessage' ? [input] : (input.Entries ?? []);
  const groups = new Map<string, string[]>();
  for (const e of entries) {
    if (e.MessageBody === undefined || e.MessageGroupId === undefined) continue;
    groups.set(e.MessageBody, [...(groups.get(e.MessageBody) ?? []), e.MessageGroupId]);
  }
  return groups;
}
