import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Clock, DeadLetterQueue } from '../../ports';
import { FileDeadLetterQueue } from './file-dead-letter-queue';
import { FileQueue } from './file-queue';

export interface LocalQueues {
  queue: FileQueue;
  deadLetters: DeadLetterQueue;
  /** The dead-letter queue itself (its depth, for health and alarms). */
  dlq: FileQueue;
  close(): void;
}

/**
 * Opens a local queue and its dead-letter queue under `dir` as `<name>.queue.jsonl` and
 * `<name>-dlq.queue.jsonl`. The calling process owns both files until `close()`.
 */
export function openLocalQueues(options: {
  dir: string;
  name: string;
  clock: Clock;
  maxReceives?: number;
  compactAfter?: number;
}): LocalQueues {
  const { dir, name, clock } = options;
  // Queued events carry payloads: owner-only.
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const dlq = FileQueue.open({ path: join(dir, `${name}-dlq.queue.jsonl`), clock, compactAfter: options.compactAfter });
  const queue = FileQueue.open({
    path: join(dir, `${name}.queue.jsonl`),
    clock,
    maxReceives: options.maxReceives,
    deadLetter: dlq,
    compactAfter: options.compactAfter,
  });
  return {
    queue,
    dlq,
    deadLetters: new FileDeadLetterQueue(dlq, queue, () => clock.now()),
    close: () => {
      queue.close();
      dlq.close();
    },
  };
}
