import * as z from 'zod';
import { providerWork } from '../../shared/wiring/provider-work';
import type { BlobStore, DeadLetter } from '../../shared/ports';

/** One dead letter as an operator reads it: what it was, for whom, and since when. */
export interface DeadLetterSummary {
  messageId: string;
  receiveCount: number;
  /** When it first entered the main queue (ISO), where known. */
  firstSentAt?: string;
  trigger?: string;
  subscriptionId?: string;
  agentId?: string;
  eventId?: string;
  deliveryId?: string;
  /** Claim-check pointer, when the event's body is in the blob store. */
  blobKey?: string;
  /** Why the body could not be read as a trigger event (it will fail again if redriven as is). */
  problem?: string;
}

const eventFields = z.object({
  id: z.string().optional(),
  trigger: z.string().optional(),
  subscriptionId: z.string().optional(),
  agentId: z.string().optional(),
  deliveryId: z.string().optional(),
});
const pointer = z.object({ blobKey: z.string().min(1) }).strict();
/** A provider's job (a collection-service delivery accepted but not yet read back): its provider says what it was; a redrive works it again. */
const jobKind = z.object({ kind: z.string() }).loose();

function describeJob(value: unknown): { trigger: string; deliveryId: string } | undefined {
  const kind = jobKind.safeParse(value);
  if (!kind.success) return undefined;
  return providerWork.jobs.find((j) => j.kind === kind.data.kind)?.describe?.(value);
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

function fromEvent(value: unknown): Partial<DeadLetterSummary> | undefined {
  const e = eventFields.safeParse(value);
  if (!e.success || !e.data.id || !e.data.trigger) return undefined;
  return {
    eventId: e.data.id,
    trigger: e.data.trigger,
    subscriptionId: e.data.subscriptionId,
    agentId: e.data.agentId,
    deliveryId: e.data.deliveryId,
  };
}

/**
 * Reads a dead letter's body for the operator: the trigger event's ids (never its `event`
 * content, which may be large or private), following a claim-check pointer when a blob
 * store is given. Never throws: an unreadable body is reported as a `problem`.
 */
export async function summarizeDeadLetter(d: DeadLetter, blobs?: Pick<BlobStore, 'get'>): Promise<DeadLetterSummary> {
  const base: DeadLetterSummary = {
    messageId: d.messageId,
    receiveCount: d.receiveCount,
    ...(d.sentAt !== undefined ? { firstSentAt: new Date(d.sentAt).toISOString() } : {}),
  };
  const value = parseJson(d.body);
  if (value === undefined) return { ...base, problem: 'body is not JSON' };
  const p = pointer.safeParse(value);
  if (p.success) {
    const withKey = { ...base, blobKey: p.data.blobKey };
    if (!blobs) return withKey;
    try {
      const bytes = await blobs.get(p.data.blobKey);
      if (!bytes) return { ...withKey, problem: 'claim-check blob is missing' };
      const inner = fromEvent(parseJson(bytes.toString('utf8')));
      return inner ? { ...withKey, ...inner } : { ...withKey, problem: 'claim-check blob is not a trigger event' };
    } catch {
      return { ...withKey, problem: 'claim-check blob could not be read' };
    }
  }
  const job = describeJob(value);
  if (job) return { ...base, ...job };
  const fields = fromEvent(value);
  return fields ? { ...base, ...fields } : { ...base, problem: 'body is not a trigger event' };
}

export function summarizeDeadLetters(list: readonly DeadLetter[], blobs?: Pick<BlobStore, 'get'>): Promise<DeadLetterSummary[]> {
  return Promise.all(list.map((d) => summarizeDeadLetter(d, blobs)));
}

/** Human-readable lines, one block per dead letter. */
export function formatDeadLetters(list: readonly DeadLetterSummary[]): string[] {
  if (list.length === 0) return ['The dead-letter queue is empty.'];
  const lines = [`${list.length} dead letter${list.length === 1 ? '' : 's'}:`];
  for (const d of list) {
    lines.push(`- message ${d.messageId}  received ${d.receiveCount}x  first sent ${d.firstSentAt ?? 'unknown'}`);
    if (d.trigger)
      lines.push(
        `    trigger ${d.trigger}  subscription ${d.subscriptionId ?? '?'}  event ${d.eventId ?? '?'}  delivery ${d.deliveryId ?? '?'}`,
      );
    if (d.blobKey) lines.push(`    body in blob ${d.blobKey}`);
    if (d.problem) lines.push(`    problem: ${d.problem} (redriving it will fail again)`);
  }
  return lines;
}
