import { createHash, randomUUID } from 'node:crypto';
import { startFakeHttp, type FakeServer } from './fake-http';

/**
 * A loopback stand-in for SQS's JSON protocol (`X-Amz-Target: AmazonSQS.<Action>`,
 * `application/x-amz-json-1.0`), as the SQS API reference describes SendMessageBatch: every
 * entry `Successful` with its `MessageId` and the MD5 of its body (which the SDK checks).
 * Point the SDK at it with `AWS_ENDPOINT_URL_SQS`. `sent` holds each message body received.
 */
export class FakeSqs {
  readonly sent: Array<{ queueUrl: string; body: string }> = [];

  private constructor(readonly server: FakeServer) {}

  static async start(): Promise<FakeSqs> {
    let self: FakeSqs | undefined;
    const server = await startFakeHttp((req) => {
      const action = String(req.headers['x-amz-target'] ?? '').replace(/^AmazonSQS\./, '');
      const input = (req.json ?? {}) as { QueueUrl?: string; Entries?: Array<{ Id: string; MessageBody: string }> };
      if (action !== 'SendMessageBatch') {
        return { status: 400, headers: { 'content-type': 'application/x-amz-json-1.0' }, body: { __type: 'UnsupportedOperation' } };
      }
      const entries = input.Entries ?? [];
      for (const e of entries) self!.sent.push({ queueUrl: input.QueueUrl ?? '', body: e.MessageBody });
      return {
        status: 200,
        headers: { 'content-type': 'application/x-amz-json-1.0' },
        body: {
          Successful: entries.map((e) => ({
            Id: e.Id,
            MessageId: randomUUID(),
            MD5OfMessageBody: createHash('md5').update(e.MessageBody, 'utf8').digest('hex'),
          })),
          Failed: [],
        },
      };
    });
    self = new FakeSqs(server);
    return self;
  }

  get url(): string {
    return this.server.url;
  }

  close(): Promise<void> {
    return this.server.close();
  }
}
