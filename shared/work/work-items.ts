import type * as z from 'zod';
import type { AppContext } from '../ports/app-context';
import type { InboundMessage, OutgoingMessage, Queue } from '../ports';

/** What every work item carries: its format's version and when its round planned it. */
export interface WorkItem {
  v: 1;
  /** Epoch ms of the round that planned it. */
  plannedAt: number;
}

/** A work item from its message body by `schema`, or why not, naming the field. */
export function parseWorkItem<T extends WorkItem>(body: string, schema: z.ZodType<T>): { item: T } | { error: string } {
  let json: unknown;
  try {
    json = JSON.parse(body);
  } catch {
    return { error: 'the body is not JSON' };
  }
  const parsed = schema.safeParse(json);
  if (parsed.success) return { item: parsed.data };
  const issue = parsed.error.issues[0];
  return { error: `${issue?.path.join('.') || 'body'}: ${issue?.message}` };
}

/** A worker's batch as work items: those to do, and those it drops or leaves to the queue. */
export interface TakenItems<T> {
  items: Array<{ messageId: string; item: T }>;
  /** Items dropped because a later round planned their work again. */
  stale: number;
  /** Messages that do not read as a work item: answered as failed, so they reach the dead-letter queue. */
  invalid: number;
  failedMessageIds: string[];
}

/**
 * Reads a batch's messages as work items. One that does not read as one is logged and left
 * to the queue (it reaches its dead-letter queue); a first receive more than `staleAfterMs`
 * after its round planned it is dropped, a later round having planned the same work again. A
 * retry runs late on purpose, so only a first receive from a backed-up queue is stale.
 */
export function takeWorkItems<T extends WorkItem>(
  ctx: Pick<AppContext, 'clock' | 'logger'>,
  messages: readonly InboundMessage[],
  parse: (body: string) => { item: T } | { error: string },
  staleAfterMs: number,
): TakenItems<T> {
  const taken: TakenItems<T> = { items: [], stale: 0, invalid: 0, failedMessageIds: [] };
  for (const m of messages) {
    const parsed = parse(m.body);
    if ('error' in parsed) {
      taken.invalid++;
      taken.failedMessageIds.push(m.messageId);
      ctx.logger.error('work item does not read as one', { messageId: m.messageId, error: parsed.error });
      continue;
    }
    if (m.receiveCount <= 1 && ctx.clock.now() - parsed.item.plannedAt > staleAfterMs) {
      taken.stale++;
      continue;
    }
    taken.items.push({ messageId: m.messageId, item: parsed.item });
  }
  return taken;
}

/** Sends work items in one batch, each grouped by its tenant (SQS fair queues' `MessageGroupId`), so no tenant's many items hold back another's. */
export async function sendWorkItems<T>(work: Queue, items: readonly T[], groupOf: (item: T) => string): Promise<void> {
  const messages: OutgoingMessage[] = items.map((item, i) => ({ id: `w${i}`, body: JSON.stringify(item), group: groupOf(item) }));
  if (messages.length > 0) await work.sendBatch(messages);
}
