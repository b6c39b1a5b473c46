import {
  ChangeMessageVisibilityCommand,
  SendMessageBatchCommand,
  SQSClient,
  type SendMessageBatchCommandOutput,
  type SendMessageBatchRequestEntry,
} from '@aws-sdk/client-sqs';
import { AppError } from '../../domain/errors';
import type { ConsumerQueue, OutgoingMessage, Queue } from '../../ports';
import { sdkClientDefaults, withoutSdkLogging } from './sdk-client-defaults';

/** What the SQS adapters need of a client: the real `SQSClient`, or a fake in tests. */
export interface SqsSender {
  send(command: unknown): Promise<unknown>;
}

export function createSqsClient(): SQSClient {
  return withoutSdkLogging(new SQSClient({ ...sdkClientDefaults }));
}

/** SQS limits per SendMessageBatch call. */
export const sqsBatchLimits = { entries: 10, bytes: 256 * 1024 } as const;
const maxVisibilitySeconds = 12 * 60 * 60;
/** The message attribute carrying `OutgoingMessage.attempts` (a dead-letter redrive sends the body alone, so the tries start over). */
export const attemptsAttribute = 'attempts';

/**
 * The Queue port over SQS. `sendBatch` splits into calls of at most 10 entries and 256 KiB,
 * sends them in parallel and throws if any entry anywhere failed (listing which), so the
 * caller never mistakes a partial send for success. Entries that did go out stay sent: a
 * retry by the caller sends them again, which consumers absorb (they are idempotent).
 */
export class SqsQueue implements Queue, ConsumerQueue {
  constructor(
    private readonly client: SqsSender,
    readonly queueUrl: string,
  ) {}

  async sendBatch(messages: OutgoingMessage[]): Promise<void> {
    const chunks = chunkMessages(messages);
    const results = await Promise.allSettled(chunks.map((chunk) => this.sendChunk(chunk)));
    const failed: { id: string; code: string }[] = [];
    results.forEach((r, i) => {
      if (r.status === 'fulfilled') failed.push(...r.value);
      else failed.push(...(chunks[i] ?? []).map((m) => ({ id: m.id, code: errorName(r.reason) })));
    });
    if (failed.length > 0) {
      throw new AppError(
        'unavailable',
        `SQS did not accept ${failed.length} of ${messages.length} messages: ${failed.map((f) => `${f.id} (${f.code})`).join(', ')}`,
        { failed },
      );
    }
  }

  async changeVisibility(receiptHandle: string, seconds: number): Promise<void> {
    const VisibilityTimeout = Math.min(maxVisibilitySeconds, Math.max(0, Math.round(seconds)));
    await this.client.send(
      new ChangeMessageVisibilityCommand({ QueueUrl: this.queueUrl, ReceiptHandle: receiptHandle, VisibilityTimeout }),
    );
  }

  /** Sends one chunk; returns the entries SQS refused, by the caller's ids. */
  private async sendChunk(chunk: OutgoingMessage[]): Promise<{ id: string; code: string }[]> {
    // Entry ids are positional: the caller's ids need not fit SQS's id alphabet.
    const Entries: SendMessageBatchRequestEntry[] = chunk.map((m, i) => ({
      Id: `m${i}`,
      MessageBody: m.body,
      ...(m.delaySeconds ? { DelaySeconds: m.delaySeconds } : {}),
      ...(m.group ? { MessageGroupId: m.group } : {}),
      ...(m.attempts ? { MessageAttributes: { [attemptsAttribute]: { DataType: 'Number', StringValue: String(m.attempts) } } } : {}),
    }));
    const out = (await this.client.send(
      new SendMessageBatchCommand({ QueueUrl: this.queueUrl, Entries }),
    )) as SendMessageBatchCommandOutput;
    return (out.Failed ?? []).map((f) => ({ id: chunk[Number(f.Id?.slice(1))]?.id ?? String(f.Id), code: f.Code ?? 'unknown' }));
  }
}

/** Greedy split by entry count and total body bytes; a single oversized body fails up front. */
export function chunkMessages(messages: OutgoingMessage[]): OutgoingMessage[][] {
  const chunks: OutgoingMessage[][] = [];
  let current: OutgoingMessage[] = [];
  let bytes = 0;
  for (const m of messages) {
    const size = Buffer.byteLength(m.body, 'utf8');
    if (size > sqsBatchLimits.bytes) {
      throw new AppError(
        'payload_too_large',
        `Message ${m.id} is ${size} bytes; SQS takes at most ${sqsBatchLimits.bytes} (store the body aside)`,
      );
    }
    if (current.length === sqsBatchLimits.entries || bytes + size > sqsBatchLimits.bytes) {
      chunks.push(current);
      current = [];
      bytes = 0;
    }
    current.push(m);
    bytes += size;
  }
  if (current.length > 0) chunks.push(current);
  return chunks;
}

export function errorName(e: unknown): string {
  return e instanceof Error ? e.name : 'unknown';
}
