import type { DeadLetter, DeadLetterQueue } from '../../ports';
import type { FileQueue } from './file-queue';

/**
 * The operator's view of a local dead-letter queue: list without touching anything, and
 * redrive back to the source queue, where a message starts over with a receive count of 0
 * and no tries carried (as after an SQS redrive), keeping its id and first-sent time.
 */
export class FileDeadLetterQueue implements DeadLetterQueue {
  constructor(
    private readonly dlq: FileQueue,
    private readonly source: FileQueue,
    private readonly now: () => number,
  ) {}

  async list(max: number): Promise<DeadLetter[]> {
    return this.dlq.peek(max).map((m) => ({ messageId: m.id, body: m.body, receiveCount: m.receiveCount, sentAt: m.sentAt }));
  }

  async redrive(messageIds?: string[]): Promise<number> {
    const wanted = messageIds ? new Set(messageIds) : undefined;
    let moved = 0;
    for (const m of this.dlq.peek(Number.MAX_SAFE_INTEGER)) {
      if (wanted && !wanted.has(m.id)) continue;
      // Into the source first, then out of the DLQ: a kill in between duplicates, never loses.
      this.source.accept({ ...m, receiveCount: 0, attempts: undefined, visibleAt: this.now() });
      this.dlq.remove(m.id);
      moved++;
    }
    return moved;
  }
}
