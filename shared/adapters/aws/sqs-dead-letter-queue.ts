import {
  ChangeMessageVisibilityBatchCommand,
  DeleteMessageBatchCommand,
  ReceiveMessageCommand,
  SendMessageBatchCommand,
  type Message,
  type ReceiveMessageCommandOutput,
  type SendMessageBatchCommandOutput,
} from '@aws-sdk/client-sqs';
import { AppError } from '../../domain/errors';
import type { DeadLetter, DeadLetterQueue } from '../../ports';
import type { SqsSender } from './sqs-queue';

export interface SqsDeadLetterQueueOptions {
  dlqUrl: string;
  sourceQueueUrl: string;
  /** How long messages stay hidden while being looked at or moved. */
  holdSeconds?: number;
  /** Upper bound of messages one `list`/`redrive` call handles (a Lambda has a deadline). */
  maxPerCall?: number;
}

/**
 * The DeadLetterQueue port over SQS, by receive / send / delete rather than
 * StartMessageMoveTask: that task is asynchronous, cannot pick messages by id and reports
 * no count, while the operator API must redrive chosen messages and say how many moved.
 * Messages looked at are hidden for `holdSeconds` and released (visibility 0) afterwards.
 * A redriven message is a new SQS message: new id, receive count starting over.
 */
export class SqsDeadLetterQueue implements DeadLetterQueue {
  private readonly hold: number;
  private readonly maxPerCall: number;

  constructor(
    private readonly client: SqsSender,
    private readonly options: SqsDeadLetterQueueOptions,
  ) {
    this.hold = options.holdSeconds ?? 30;
    this.maxPerCall = options.maxPerCall ?? 500;
  }

  async list(max: number): Promise<DeadLetter[]> {
    const held: Message[] = [];
    try {
      while (held.length < Math.min(max, this.maxPerCall)) {
        const batch = await this.receive(Math.min(10, max - held.length));
        if (batch.length === 0) break;
        held.push(...batch);
      }
      return held.map(toDeadLetter);
    } finally {
      await this.release(held);
    }
  }

  async redrive(messageIds?: string[]): Promise<number> {
    const wanted = messageIds ? new Set(messageIds) : undefined;
    const skipped: Message[] = [];
    let moved = 0;
    let seen = 0;
    try {
      while (seen < this.maxPerCall && (!wanted || wanted.size > 0)) {
        const batch = await this.receive(10);
        if (batch.length === 0) break;
        seen += batch.length;
        const take = batch.filter((m) => !wanted || wanted.has(m.MessageId ?? ''));
        skipped.push(...batch.filter((m) => !take.includes(m)));
        moved += await this.move(take, skipped);
        for (const m of take) wanted?.delete(m.MessageId ?? '');
      }
    } finally {
      await this.release(skipped);
    }
    return moved;
  }

  /** Sends to the source queue, then deletes from the DLQ what was sent; the rest is released. */
  private async move(messages: Message[], skipped: Message[]): Promise<number> {
    if (messages.length === 0) return 0;
    // A redriven message keeps its tenant's group (fair queues).
    const Entries = messages.map((m, i) => {
      const group = m.Attributes?.MessageGroupId;
      return { Id: `m${i}`, MessageBody: m.Body ?? '', ...(group ? { MessageGroupId: group } : {}) };
    });
    const out = (await this.client.send(
      new SendMessageBatchCommand({ QueueUrl: this.options.sourceQueueUrl, Entries }),
    )) as SendMessageBatchCommandOutput;
    const failed = new Set((out.Failed ?? []).map((f) => f.Id));
    const sent = messages.filter((_, i) => !failed.has(`m${i}`));
    skipped.push(...messages.filter((_, i) => failed.has(`m${i}`)));
    if (sent.length > 0) {
      await this.client.send(
        new DeleteMessageBatchCommand({
          QueueUrl: this.options.dlqUrl,
          Entries: sent.map((m, i) => ({ Id: `m${i}`, ReceiptHandle: m.ReceiptHandle ?? '' })),
        }),
      );
    }
    if (failed.size > 0)
      throw new AppError('unavailable', `SQS refused ${failed.size} redriven messages; they stay in the dead-letter queue`);
    return sent.length;
  }

  private async receive(max: number): Promise<Message[]> {
    const out = (await this.client.send(
      new ReceiveMessageCommand({
        QueueUrl: this.options.dlqUrl,
        MaxNumberOfMessages: max,
        VisibilityTimeout: this.hold,
        // Long polling asks every server, so an empty answer means an empty queue.
        WaitTimeSeconds: 1,
        MessageSystemAttributeNames: ['ApproximateReceiveCount', 'SentTimestamp', 'MessageGroupId'],
      }),
    )) as ReceiveMessageCommandOutput;
    return out.Messages ?? [];
  }

  private async release(messages: Message[]): Promise<void> {
    for (let i = 0; i < messages.length; i += 10) {
      const Entries = messages
        .slice(i, i + 10)
        .map((m, j) => ({ Id: `m${j}`, ReceiptHandle: m.ReceiptHandle ?? '', VisibilityTimeout: 0 }));
      await this.client.send(new ChangeMessageVisibilityBatchCommand({ QueueUrl: this.options.dlqUrl, Entries }));
    }
  }
}

function toDeadLetter(m: Message): DeadLetter {
  const sent = Number(m.Attributes?.SentTimestamp);
  return {
    messageId: m.MessageId ?? '',
    body: m.Body ?? '',
    receiveCount: Number(m.Attributes?.ApproximateReceiveCount ?? 0),
    ...(Number.isFinite(sent) && sent > 0 ? { sentAt: sent } : {}),
  };
}
