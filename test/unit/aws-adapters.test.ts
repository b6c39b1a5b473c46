import { describe, expect, it } from 'vitest';
import { S3BlobStore } from '../../shared/adapters/aws/s3-blob-store';
import { SecretsManagerStore } from '../../shared/adapters/aws/secrets-manager-store';
import { SqsDeadLetterQueue } from '../../shared/adapters/aws/sqs-dead-letter-queue';
import { SqsQueue } from '../../shared/adapters/aws/sqs-queue';
import { buildAwsContext } from '../helpers/aws-context';
import { loadConfig } from '../../shared/config/config';
import { AppError } from '../../shared/domain/errors';
import type { Store } from '../../shared/ports';
import { TestClock } from '../helpers/test-clock';

type Input = Record<string, any>;
type Handler = (name: string, input: Input) => unknown;

/** Stands in for an AWS SDK client: records every command by class name and input. */
class FakeClient {
  readonly calls: { name: string; input: Input }[] = [];
  constructor(private readonly handler: Handler = () => ({})) {}
  async send(command: unknown): Promise<unknown> {
    const c = command as { constructor: { name: string }; input: Input };
    const call = { name: c.constructor.name.replace(/Command$/, ''), input: c.input };
    this.calls.push(call);
    return this.handler(call.name, call.input);
  }
  names(): string[] {
    return this.calls.map((c) => c.name);
  }
}

function awsError(name: string, message = name): Error {
  const e = new Error(message);
  e.name = name;
  return e;
}

const url = 'https://sqs.eu-west-1.amazonaws.com/123456789012/dispatch';
const dlqUrl = 'https://sqs.eu-west-1.amazonaws.com/123456789012/dispatch-dlq';

describe('SqsQueue', () => {
  it('sends in batches of at most 10 entries, in order, with delays only where set', async () => {
    const sqs = new FakeClient();
    const messages = Array.from({ length: 25 }, (_, i) => ({ id: `event:${i}`, body: `b${i}`, ...(i === 3 ? { delaySeconds: 30 } : {}) }));
    await new SqsQueue(sqs, url).sendBatch(messages);
    expect(sqs.calls.map((c) => c.input.Entries.length)).toEqual([10, 10, 5]);
    expect(sqs.calls.every((c) => c.name === 'SendMessageBatch' && c.input.QueueUrl === url)).toBe(true);
    expect(sqs.calls.flatMap((c) => c.input.Entries.map((e: Input) => e.MessageBody))).toEqual(messages.map((m) => m.body));
    expect(sqs.calls[0]?.input.Entries[3]).toEqual({ Id: 'm3', MessageBody: 'b3', DelaySeconds: 30 });
    expect(sqs.calls[0]?.input.Entries[2]).toEqual({ Id: 'm2', MessageBody: 'b2' });
  });

  it("sends a message's tenant as its MessageGroupId (SQS fair queues on a standard queue), and none where it has none", async () => {
    const sqs = new FakeClient();
    await new SqsQueue(sqs, url).sendBatch([
      { id: 'a', body: 'a', group: 'conn_1' },
      { id: 'b', body: 'b' },
    ]);
    expect(sqs.calls[0]?.input.Entries).toEqual([
      { Id: 'm0', MessageBody: 'a', MessageGroupId: 'conn_1' },
      { Id: 'm1', MessageBody: 'b' },
    ]);
  });

  it('starts a new batch before the 256 KiB batch size would be exceeded', async () => {
    const sqs = new FakeClient();
    const big = 'x'.repeat(100 * 1024);
    await new SqsQueue(sqs, url).sendBatch([
      { id: 'a', body: big },
      { id: 'b', body: big },
      { id: 'c', body: big },
      { id: 'd', body: 'small' },
    ]);
    expect(sqs.calls.map((c) => c.input.Entries.length)).toEqual([2, 2]);
  });

  it('refuses a single body over 256 KiB before sending anything', async () => {
    const sqs = new FakeClient();
    const queue = new SqsQueue(sqs, url);
    await queue.sendBatch([{ id: 'max', body: 'x'.repeat(256 * 1024) }]);
    await expect(
      queue.sendBatch([
        { id: 'ok', body: 'y' },
        { id: 'huge', body: 'x'.repeat(256 * 1024 + 1) },
      ]),
    ).rejects.toMatchObject({ code: 'payload_too_large' });
    expect(sqs.calls).toHaveLength(1);
  });

  it('fails loudly, naming the caller ids, when SQS refuses some entries of a batch', async () => {
    const sqs = new FakeClient((_, input) =>
      input.Entries.length === 2 ? { Failed: [{ Id: 'm1', Code: 'InternalError', SenderFault: false }] } : {},
    );
    const messages = Array.from({ length: 12 }, (_, i) => ({ id: `ev-${i}`, body: `b${i}` }));
    const err = await new SqsQueue(sqs, url).sendBatch(messages).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(AppError);
    expect(err).toMatchObject({ code: 'unavailable', details: { failed: [{ id: 'ev-11', code: 'InternalError' }] } });
    expect((err as Error).message).toContain('1 of 12');
  });

  it('counts every entry of a batch whose call failed outright', async () => {
    const sqs = new FakeClient((_, input) => {
      if (input.Entries.length === 10) throw awsError('RequestThrottled');
      return {};
    });
    const err = await new SqsQueue(sqs, url)
      .sendBatch(Array.from({ length: 11 }, (_, i) => ({ id: `e${i}`, body: 'b' })))
      .catch((e: unknown) => e);
    expect((err as Error).message).toMatch(/10 of 11.*e0 \(RequestThrottled\)/);
  });

  it('changes the visibility of a message in flight, within the SQS range', async () => {
    const sqs = new FakeClient();
    const queue = new SqsQueue(sqs, url);
    await queue.changeVisibility('rh-1', 90);
    await queue.changeVisibility('rh-2', 100_000);
    expect(sqs.calls).toEqual([
      { name: 'ChangeMessageVisibility', input: { QueueUrl: url, ReceiptHandle: 'rh-1', VisibilityTimeout: 90 } },
      { name: 'ChangeMessageVisibility', input: { QueueUrl: url, ReceiptHandle: 'rh-2', VisibilityTimeout: 43_200 } },
    ]);
  });
});

/** A dead-letter queue in memory behind the SQS commands the adapter uses. */
function fakeDlq(count: number, refuseBody?: string) {
  const messages = Array.from({ length: count }, (_, i) => ({ id: `dead-${i}`, body: `body-${i}`, hidden: false }));
  const sent: string[] = [];
  let n = 0;
  const client = new FakeClient((name, input) => {
    const byHandle = (h: string) => messages.find((m) => h.startsWith(`${m.id}#`));
    switch (name) {
      case 'ReceiveMessage': {
        const out = messages.filter((m) => !m.hidden).slice(0, input.MaxNumberOfMessages);
        for (const m of out) m.hidden = true;
        return {
          Messages: out.map((m) => ({
            MessageId: m.id,
            Body: m.body,
            ReceiptHandle: `${m.id}#${n++}`,
            Attributes: { ApproximateReceiveCount: '6', SentTimestamp: '1795341600000' },
          })),
        };
      }
      case 'ChangeMessageVisibilityBatch':
        for (const e of input.Entries as Input[]) {
          const m = byHandle(e.ReceiptHandle);
          if (m) m.hidden = e.VisibilityTimeout > 0;
        }
        return {};
      case 'DeleteMessageBatch':
        for (const e of input.Entries as Input[]) messages.splice(messages.indexOf(byHandle(e.ReceiptHandle)!), 1);
        return {};
      case 'SendMessageBatch': {
        const failed = input.Entries.filter((e: Input) => e.MessageBody === refuseBody).map((e: Input) => ({
          Id: e.Id,
          Code: 'InternalError',
        }));
        sent.push(...input.Entries.filter((e: Input) => e.MessageBody !== refuseBody).map((e: Input) => e.MessageBody));
        return { Failed: failed };
      }
      default:
        throw new Error(`unexpected ${name}`);
    }
  });
  return { client, messages, sent, dlq: new SqsDeadLetterQueue(client, { dlqUrl, sourceQueueUrl: url }) };
}

describe('SqsDeadLetterQueue', () => {
  it('lists dead letters with their receive count and first-sent time, then releases them', async () => {
    const { dlq, messages, client } = fakeDlq(13);
    const listed = await dlq.list(12);
    expect(listed).toHaveLength(12);
    expect(listed[0]).toEqual({ messageId: 'dead-0', body: 'body-0', receiveCount: 6, sentAt: 1795341600000 });
    expect(messages.every((m) => !m.hidden)).toBe(true);
    expect(client.calls.filter((c) => c.name === 'ReceiveMessage').every((c) => c.input.QueueUrl === dlqUrl)).toBe(true);
  });

  it('redrives the chosen messages to the source queue, deletes them from the DLQ and releases the rest', async () => {
    const { dlq, messages, sent, client } = fakeDlq(15);
    expect(await dlq.redrive(['dead-2', 'dead-12'])).toBe(2);
    expect(sent).toEqual(['body-2', 'body-12']);
    expect(client.calls.filter((c) => c.name === 'SendMessageBatch').every((c) => c.input.QueueUrl === url)).toBe(true);
    expect(messages.map((m) => m.id)).not.toContain('dead-2');
    expect(messages).toHaveLength(13);
    expect(messages.every((m) => !m.hidden)).toBe(true);
  });

  it('redrives everything when no ids are given', async () => {
    const { dlq, messages, sent } = fakeDlq(23);
    expect(await dlq.redrive()).toBe(23);
    expect(sent).toHaveLength(23);
    expect(messages).toEqual([]);
  });

  it('keeps in the DLQ, and reports, messages the source queue refused', async () => {
    const { dlq, messages } = fakeDlq(3, 'body-1');
    await expect(dlq.redrive()).rejects.toMatchObject({ code: 'unavailable' });
    expect(messages.map((m) => [m.id, m.hidden])).toEqual([['dead-1', false]]);
  });
});

describe('SecretsManagerStore', () => {
  function fakeSecrets(values: Map<string, string>, scheduled = new Set<string>()) {
    return new FakeClient((name, input) => {
      const id = input.SecretId ?? input.Name;
      if (scheduled.has(id) && name !== 'RestoreSecret')
        throw awsError('InvalidRequestException', "You can't perform this operation on the secret because it was marked for deletion.");
      switch (name) {
        case 'GetSecretValue':
          if (!values.has(id)) throw awsError('ResourceNotFoundException');
          return { SecretString: values.get(id) };
        case 'PutSecretValue':
          if (!values.has(id)) throw awsError('ResourceNotFoundException');
          values.set(id, input.SecretString);
          return {};
        case 'CreateSecret':
          values.set(id, input.SecretString);
          return {};
        case 'RestoreSecret':
          scheduled.delete(id);
          return {};
        case 'DeleteSecret':
          if (!values.delete(id)) throw awsError('ResourceNotFoundException');
          return {};
        default:
          throw new Error(`unexpected ${name}`);
      }
    });
  }

  it('prefixes names and caches values for 60 seconds', async () => {
    const clock = new TestClock();
    const sm = fakeSecrets(new Map([['app/connections/c1/token', 'v1']]));
    const store = new SecretsManagerStore(sm, 'app/', clock);
    expect(await store.get('connections/c1/token')).toBe('v1');
    clock.advance(59_999);
    expect(await store.get('connections/c1/token')).toBe('v1');
    expect(sm.calls).toEqual([{ name: 'GetSecretValue', input: { SecretId: 'app/connections/c1/token' } }]);
    clock.advance(1);
    await store.get('connections/c1/token');
    expect(sm.names()).toEqual(['GetSecretValue', 'GetSecretValue']);
  });

  it('reads a missing secret as undefined and does not cache the absence', async () => {
    const values = new Map<string, string>();
    const store = new SecretsManagerStore(fakeSecrets(values), 'app/', new TestClock());
    expect(await store.get('x')).toBeUndefined();
    values.set('app/x', 'now here');
    expect(await store.get('x')).toBe('now here');
  });

  it('creates a secret on first put, updates it after, and drops the cached value', async () => {
    const values = new Map<string, string>();
    const sm = fakeSecrets(values);
    const store = new SecretsManagerStore(sm, 'app/', new TestClock());
    await store.put('e1', 'first');
    expect(sm.calls.slice(0, 2)).toEqual([
      { name: 'PutSecretValue', input: { SecretId: 'app/e1', SecretString: 'first' } },
      { name: 'CreateSecret', input: { Name: 'app/e1', SecretString: 'first' } },
    ]);
    expect(await store.get('e1')).toBe('first');
    await store.put('e1', 'second');
    expect(sm.names().slice(-1)).toEqual(['PutSecretValue']);
    expect(await store.get('e1')).toBe('second');
  });

  it('restores a secret still scheduled for deletion before writing it', async () => {
    const values = new Map([['app/e1', 'old']]);
    const sm = fakeSecrets(values, new Set(['app/e1']));
    await new SecretsManagerStore(sm, 'app/', new TestClock()).put('e1', 'new');
    expect(sm.names()).toEqual(['PutSecretValue', 'RestoreSecret', 'PutSecretValue']);
    expect(values.get('app/e1')).toBe('new');
  });

  it('writes over a secret another writer created between PutSecretValue and CreateSecret', async () => {
    let created = false;
    const sm = new FakeClient((name) => {
      if (name === 'PutSecretValue' && !created) throw awsError('ResourceNotFoundException');
      if (name === 'CreateSecret') {
        created = true;
        throw awsError('ResourceExistsException');
      }
      return {};
    });
    await new SecretsManagerStore(sm, 'app/', new TestClock()).put('e1', 'v');
    expect(sm.names()).toEqual(['PutSecretValue', 'CreateSecret', 'PutSecretValue']);
  });

  it('deletes without a recovery window, tolerates a missing secret and forgets the cached value', async () => {
    const values = new Map([['app/t', 'v']]);
    const sm = fakeSecrets(values);
    const store = new SecretsManagerStore(sm, 'app/', new TestClock());
    expect(await store.get('t')).toBe('v');
    await store.delete('t');
    expect(sm.calls[1]).toEqual({ name: 'DeleteSecret', input: { SecretId: 'app/t', ForceDeleteWithoutRecovery: true } });
    expect(await store.get('t')).toBeUndefined();
    await store.delete('t');
  });

  it('does not cache a value read while a put was under way', async () => {
    const values = new Map([['app/k', 'old']]);
    let releaseRead!: () => void;
    const sm = new FakeClient(async (name, input) => {
      if (name === 'GetSecretValue') {
        const v = values.get(input.SecretId);
        await new Promise<void>((r) => (releaseRead = r));
        return { SecretString: v };
      }
      values.set(input.SecretId, input.SecretString);
      return {};
    });
    const store = new SecretsManagerStore(sm, 'app/', new TestClock());
    const racing = store.get('k');
    await store.put('k', 'new');
    releaseRead();
    expect(await racing).toBe('old');
    const next = store.get('k');
    releaseRead();
    expect(await next).toBe('new');
  });
});

describe('S3BlobStore', () => {
  it('puts, gets and deletes objects in its bucket, and reads a missing key as undefined', async () => {
    const objects = new Map<string, Buffer>();
    const s3 = new FakeClient((name, input) => {
      if (name === 'PutObject') objects.set(input.Key, input.Body);
      if (name === 'DeleteObject') objects.delete(input.Key);
      if (name === 'GetObject') {
        const body = objects.get(input.Key);
        if (!body) throw awsError('NoSuchKey');
        return { Body: { transformToByteArray: async () => new Uint8Array(body) } };
      }
      return {};
    });
    const blobs = new S3BlobStore(s3, 'bucket-1', 'claims/');
    await blobs.put('d-1.json', Buffer.from('{"big":true}'));
    expect(s3.calls[0]?.input).toMatchObject({ Bucket: 'bucket-1', Key: 'claims/d-1.json' });
    expect((await blobs.get('d-1.json'))?.toString()).toBe('{"big":true}');
    await blobs.delete('d-1.json');
    expect(await blobs.get('d-1.json')).toBeUndefined();
  });
});

describe('buildAwsContext', () => {
  const store = {} as Store;
  const arn = 'arn:aws:secretsmanager:eu-west-1:123456789012:secret:platform-key-AbCdEf';

  it('uses secret values given in the environment without calling Secrets Manager', async () => {
    const sm = new FakeClient();
    const config = loadConfig({
      PLATFORM_API_KEY: 'pk-env'.padEnd(32, '0'),
      DISPATCH_SIGNING_SECRET: 'sig-env'.padEnd(32, '0'),
      GITHUB_CLIENT_SECRET: 'gh-env',
    });
    const ctx = buildAwsContext(config, { store, secretsManager: sm });
    expect(await ctx.platformApiKey()).toBe('pk-env'.padEnd(32, '0'));
    expect(await ctx.dispatchSigningSecret()).toBe('sig-env'.padEnd(32, '0'));
    expect(await ctx.oauthClientSecret('github')).toBe('gh-env');
    expect(sm.calls).toEqual([]);
  });

  it('reads a secret by its ARN once and keeps it, and retries a failed read', async () => {
    let fail = true;
    const sm = new FakeClient((_, input) => {
      if (fail) {
        fail = false;
        throw awsError('InternalServiceError');
      }
      return { SecretString: `value-of:${input.SecretId}` };
    });
    const ctx = buildAwsContext(loadConfig({ PLATFORM_API_KEY_SECRET_ARN: arn, CONTENTSNARE_CLIENT_SECRET_ARN: arn }), {
      store,
      secretsManager: sm,
    });
    await expect(ctx.platformApiKey()).rejects.toThrow('InternalServiceError');
    expect(await ctx.platformApiKey()).toBe(`value-of:${arn}`);
    expect(await ctx.platformApiKey()).toBe(`value-of:${arn}`);
    expect(await ctx.oauthClientSecret('contentsnare')).toBe(`value-of:${arn}`);
    expect(sm.calls.map((c) => c.input.SecretId)).toEqual([arn, arn, arn]);
  });

  it('fails clearly when a required secret is configured nowhere, and answers undefined for an unset OAuth secret', async () => {
    const ctx = buildAwsContext(loadConfig({}), { store, secretsManager: new FakeClient() });
    await expect(ctx.platformApiKey()).rejects.toMatchObject({
      code: 'not_configured',
      message: expect.stringContaining('PLATFORM_API_KEY_SECRET_ARN'),
    });
    await expect(ctx.dispatchSigningSecret()).rejects.toMatchObject({
      code: 'not_configured',
      message: expect.stringContaining('DISPATCH_SIGNING_SECRET'),
    });
    expect(await ctx.oauthClientSecret('github')).toBeUndefined();
  });

  it('wires the queue, blobs and secrets to the configured resources, and refuses unset ones clearly', async () => {
    const sqs = new FakeClient();
    const s3 = new FakeClient();
    const sm = new FakeClient(() => ({ SecretString: 'tok' }));
    const ctx = buildAwsContext(loadConfig({ QUEUE_URL: url, BLOB_BUCKET: 'blobs-1', SECRET_PREFIX: 'stage/' }), {
      store,
      sqs,
      s3,
      secretsManager: sm,
    });
    await ctx.queue.sendBatch([{ id: 'a', body: 'x' }]);
    await ctx.blobs.put('k', Buffer.from('v'));
    await ctx.secrets.get('n');
    expect(sqs.calls[0]?.input.QueueUrl).toBe(url);
    expect(s3.calls[0]?.input.Bucket).toBe('blobs-1');
    expect(sm.calls[0]?.input.SecretId).toBe('stage/n');

    const bare = buildAwsContext(loadConfig({}), { store, secretsManager: sm });
    await expect(bare.blobs.get('k')).rejects.toMatchObject({ code: 'not_configured', message: expect.stringContaining('BLOB_BUCKET') });
    await expect(bare.queue.sendBatch([{ id: 'a', body: 'x' }])).rejects.toMatchObject({
      code: 'not_configured',
      message: expect.stringContaining('QUEUE_URL'),
    });
  });
});
