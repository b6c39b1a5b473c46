import { describe, expect, it } from 'vitest';
import { buildAwsCoreContext } from '../../shared/wiring/aws-core-context';
import { kmsSealerOnFirstUse } from '../../shared/wiring/aws-kms-on-first-use';
import { sqsQueue } from '../../shared/wiring/aws-sqs';
import { loadConfig } from '../../shared/config/config';
import type { Store } from '../../shared/ports';

/** Records the commands sent, answering `{}`. */
class Recorder {
  readonly inputs: Array<Record<string, unknown>> = [];
  async send(command: unknown): Promise<unknown> {
    this.inputs.push((command as { input: Record<string, unknown> }).input);
    return {};
  }
}

const store = {} as Store;
const url = 'https://sqs.eu-west-1.amazonaws.com/123456789012/dispatch';

describe('buildAwsCoreContext: the adapters a role is built with', () => {
  it('uses the queue adapter it is given for QUEUE_URL', async () => {
    const sqs = new Recorder();
    const ctx = buildAwsCoreContext(loadConfig({ QUEUE_URL: url }), { queue: sqsQueue(sqs) }, { store, secretsManager: new Recorder() });
    await ctx.queue.sendBatch([{ id: 'a', body: 'x' }]);
    expect(sqs.inputs[0]?.QueueUrl).toBe(url);
  });

  it('gives the consumer a queue that postpones messages on the same URL (typed: the dispatch handler checks nothing)', async () => {
    const sqs = new Recorder();
    const ctx = buildAwsCoreContext(loadConfig({ QUEUE_URL: url }), { queue: sqsQueue(sqs) }, { store, secretsManager: new Recorder() });
    await ctx.queue.changeVisibility('handle-1', 30);
    expect(sqs.inputs[0]).toMatchObject({ QueueUrl: url, ReceiptHandle: 'handle-1', VisibilityTimeout: 30 });
  });

  it('answers not_configured when a role without the queue postpones a message', async () => {
    const ctx = buildAwsCoreContext(loadConfig({}), {}, { store, secretsManager: new Recorder() });
    await expect(ctx.queue.changeVisibility('handle-1', 30)).rejects.toMatchObject({
      code: 'not_configured',
      message: expect.stringContaining('cannot postpone'),
    });
  });

  it('says the function was built without an adapter, rather than blaming the setting, when a role has none', async () => {
    const ctx = buildAwsCoreContext(loadConfig({ QUEUE_URL: url, BLOB_BUCKET: 'blobs-1' }), {}, { store, secretsManager: new Recorder() });
    await expect(ctx.queue.sendBatch([{ id: 'a', body: 'x' }])).rejects.toMatchObject({
      code: 'not_configured',
      message: expect.stringContaining('without the queue adapter'),
    });
    await expect(ctx.blobs.put('k', Buffer.from('v'))).rejects.toMatchObject({
      code: 'not_configured',
      message: expect.stringContaining('without the blob adapter'),
    });
  });

  it('still names the missing setting when the adapter is there but the setting is not', async () => {
    const ctx = buildAwsCoreContext(loadConfig({}), { queue: sqsQueue(new Recorder()) }, { store, secretsManager: new Recorder() });
    await expect(ctx.queue.sendBatch([{ id: 'a', body: 'x' }])).rejects.toMatchObject({
      code: 'not_configured',
      message: expect.stringContaining('QUEUE_URL'),
    });
  });
});

describe('the installation tokens sealer of a Lambda function', () => {
  it('answers not_configured naming KMS_KEY_ARN when the stack gave the function no key, before any KMS call', async () => {
    const sealer = kmsSealerOnFirstUse(undefined);
    await expect(sealer.seal('ghs_x', 'APPTOKEN#1')).rejects.toMatchObject({
      code: 'not_configured',
      message: expect.stringContaining('KMS_KEY_ARN'),
    });
    await expect(sealer.open('c', 'APPTOKEN#1')).rejects.toMatchObject({ code: 'not_configured' });
  });
});
