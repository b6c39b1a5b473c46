import * as z from 'zod';
import type { AppContext } from '../ports/app-context';
import type { TriggerEvent } from '../domain/model';
import { isTriggerId } from '../domain/triggers';
import type { OutgoingMessage } from '../ports';
import { tenantOf } from './tenant';

/** Bodies above this go to the blob store with a pointer in the message (SQS holds 256 KB). */
export const maxInlineBytes = 200 * 1024;

const pointerSchema = z.object({ blobKey: z.string().min(1) }).strict();

const triggerEventSchema = z.object({
  id: z.string().min(1),
  trigger: z.string().refine(isTriggerId),
  subscriptionId: z.string().min(1),
  agentId: z.string().min(1),
  connectionId: z.string().min(1),
  deliveryId: z.string().min(1),
  occurredAt: z.string().min(1),
  event: z.record(z.string(), z.unknown()),
  replayOf: z.string().min(1).max(128).optional(),
});

export function blobKeyFor(eventId: string): string {
  return `events/${eventId}.json`;
}

/** The event id a claim-check pointer message names (through its blob key), if it is one. */
export function eventIdOfPointer(body: string): string | undefined {
  try {
    const pointer = pointerSchema.safeParse(JSON.parse(body));
    return pointer.success ? /^events\/([A-Za-z0-9_-]+)\.json$/.exec(pointer.data.blobKey)?.[1] : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The queue message for one trigger event: the event's JSON itself, or, when it is too
 * big for a message, a pointer `{blobKey}` to the same bytes in the blob store (claim check).
 */
export async function toQueueMessage(ctx: Pick<AppContext, 'blobs'>, event: TriggerEvent): Promise<OutgoingMessage> {
  const body = JSON.stringify(event);
  const group = tenantOf(event);
  if (Buffer.byteLength(body, 'utf8') <= maxInlineBytes) return { id: event.id, body, group };
  const blobKey = blobKeyFor(event.id);
  await ctx.blobs.put(blobKey, Buffer.from(body, 'utf8'));
  return { id: event.id, body: JSON.stringify({ blobKey }), group };
}

/** A message that can never be delivered, however often it is tried. */
export class PoisonMessageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'PoisonMessageError';
  }
}

export interface ReadEvent {
  event: TriggerEvent;
  blobKey?: string;
}

function parseEvent(text: string, where: string): TriggerEvent {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new PoisonMessageError(`${where} is not JSON`);
  }
  const parsed = triggerEventSchema.safeParse(value);
  if (!parsed.success)
    throw new PoisonMessageError(
      `${where} is not a trigger event: ${parsed.error.issues.map((i) => i.path.join('.') || '(body)').join(', ')}`,
    );
  return parsed.data as TriggerEvent;
}

/**
 * Reads a message back into its trigger event, following a claim-check pointer.
 * Throws `PoisonMessageError` for what can never succeed; a blob-store failure is thrown
 * as is (temporary: retry). A pointer whose blob is gone is poison too.
 */
export async function fromQueueMessage(ctx: Pick<AppContext, 'blobs'>, body: string): Promise<ReadEvent> {
  let value: unknown;
  try {
    value = JSON.parse(body);
  } catch {
    throw new PoisonMessageError('message body is not JSON');
  }
  const pointer = pointerSchema.safeParse(value);
  if (!pointer.success) return { event: parseEvent(body, 'message body') };
  const bytes = await ctx.blobs.get(pointer.data.blobKey);
  if (!bytes) throw new PoisonMessageError(`claim-check blob ${pointer.data.blobKey} is missing`);
  return { event: parseEvent(bytes.toString('utf8'), `blob ${pointer.data.blobKey}`), blobKey: pointer.data.blobKey };
}
