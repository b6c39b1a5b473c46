import { Agent, request } from 'node:http';

/** A received message as SQS's JSON protocol answers it (the fields the event source mapping passes on). */
export interface JsonMessage {
  MessageId?: string;
  ReceiptHandle?: string;
  Body?: string;
  Attributes?: Record<string, string>;
  /** String attributes only: the product sends no binary ones. */
  MessageAttributes?: Record<string, { DataType?: string; StringValue?: string }>;
}

/**
 * The event source mapping's side of SQS for a bench, over the JSON protocol as the SDK speaks
 * it but without the SDK's middleware and signing: the mapping is AWS's work, not the
 * product's, and on a shared two-core machine the SDK's per-call CPU on the bench's thread was
 * the largest share of it. The emulator takes unsigned calls.
 */
export class SqsJson {
  private readonly agent = new Agent({ keepAlive: true });

  constructor(private readonly endpoint: string) {}

  async receive(queueUrl: string, max: number, waitSeconds: number): Promise<JsonMessage[]> {
    const out = (await this.call('ReceiveMessage', {
      QueueUrl: queueUrl,
      MaxNumberOfMessages: max,
      WaitTimeSeconds: waitSeconds,
      MessageSystemAttributeNames: ['ApproximateReceiveCount', 'SentTimestamp', 'MessageGroupId'],
      MessageAttributeNames: ['All'],
    })) as { Messages?: JsonMessage[] };
    return out.Messages ?? [];
  }

  async deleteBatch(queueUrl: string, receiptHandles: readonly string[]): Promise<void> {
    await this.call('DeleteMessageBatch', {
      QueueUrl: queueUrl,
      Entries: receiptHandles.map((h, i) => ({ Id: `d${i}`, ReceiptHandle: h })),
    });
  }

  private async call(action: string, body: unknown): Promise<unknown> {
    const payload = JSON.stringify(body);
    return new Promise((resolve, reject) => {
      const req = request(
        this.endpoint,
        {
          method: 'POST',
          agent: this.agent,
          headers: {
            'content-type': 'application/x-amz-json-1.0',
            'x-amz-target': `AmazonSQS.${action}`,
            'content-length': Buffer.byteLength(payload),
          },
        },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('end', () => {
            const text = Buffer.concat(chunks).toString('utf8');
            if ((res.statusCode ?? 500) >= 300) reject(new Error(`SQS ${action}: HTTP ${res.statusCode} ${text.slice(0, 200)}`));
            else resolve(text ? JSON.parse(text) : {});
          });
          res.on('error', reject);
        },
      );
      req.on('error', reject);
      req.end(payload);
    });
  }
}
