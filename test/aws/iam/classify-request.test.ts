import {
  BatchGetItemCommand,
  BatchWriteItemCommand,
  CreateTableCommand,
  DeleteItemCommand,
  DescribeTableCommand,
  DynamoDBClient,
  ExecuteStatementCommand,
  GetItemCommand,
  PutItemCommand,
  QueryCommand,
  ScanCommand,
  TransactGetItemsCommand,
  TransactWriteItemsCommand,
  UpdateItemCommand,
} from '@aws-sdk/client-dynamodb';
import {
  DeleteObjectCommand,
  GetObjectCommand,
  HeadObjectCommand,
  ListObjectsV2Command,
  PutObjectCommand,
  S3Client,
} from '@aws-sdk/client-s3';
import {
  CreateSecretCommand,
  DeleteSecretCommand,
  DescribeSecretCommand,
  GetSecretValueCommand,
  PutSecretValueCommand,
  RestoreSecretCommand,
  SecretsManagerClient,
} from '@aws-sdk/client-secrets-manager';
import {
  ChangeMessageVisibilityBatchCommand,
  DeleteMessageBatchCommand,
  GetQueueAttributesCommand,
  GetQueueUrlCommand,
  ListMessageMoveTasksCommand,
  PurgeQueueCommand,
  ReceiveMessageCommand,
  SendMessageBatchCommand,
  SendMessageCommand,
  SQSClient,
  StartMessageMoveTaskCommand,
} from '@aws-sdk/client-sqs';
import { DecryptCommand, EncryptCommand, GenerateDataKeyCommand, KMSClient } from '@aws-sdk/client-kms';
import { describe, expect, it } from 'vitest';
import { kmsTokenSealer } from '../../../shared/adapters/aws/kms-token-sealer';
import { DynamoStore } from '../../../shared/adapters/aws/dynamo-store';
import { ensureTable } from '../../../shared/adapters/aws/ensure-table';
import { S3BlobStore } from '../../../shared/adapters/aws/s3-blob-store';
import { readSecretString } from '../../../shared/adapters/aws/secrets-manager-reader';
import { SecretsManagerStore } from '../../../shared/adapters/aws/secrets-manager-store';
import { SqsDeadLetterQueue } from '../../../shared/adapters/aws/sqs-dead-letter-queue';
import { SqsQueue } from '../../../shared/adapters/aws/sqs-queue';
import { type AuthzCheck, type ClassifyContext, classifyRequest, type RawRequest, type TableSchema } from './classify-request';
import { capturingClientConfig, captureOne } from './sdk-capture';
import { type Resolver, secretArnFor } from './template-policies';

const account = '123456789012';
const endpoint = 'http://aws.localtest:4566';
const tableArn = `arn:aws:dynamodb:us-east-1:${account}:table/T`;
const queueUrl = `${endpoint}/${account}/work-queue`;
const queueArn = `arn:aws:sqs:us-east-1:${account}:work-queue`;
const dlqArn = `arn:aws:sqs:us-east-1:${account}:work-dlq`;
const templateSecretArn = secretArnFor({ partition: 'aws', region: 'us-east-1', accountId: account }, 'Stack-SigningSecret');

const resolver: Resolver = {
  partition: 'aws',
  region: 'us-east-1',
  accountId: account,
  urlSuffix: 'amazonaws.com',
  stackName: 'Stack',
  stackId: `arn:aws:cloudformation:us-east-1:${account}:stack/Stack/1`,
  resources: {
    Table: { Ref: 'T', Arn: tableArn },
    Queue: { Ref: queueUrl, QueueUrl: queueUrl, QueueName: 'work-queue', Arn: queueArn },
    Dlq: { Ref: `${endpoint}/${account}/work-dlq`, QueueUrl: `${endpoint}/${account}/work-dlq`, QueueName: 'work-dlq', Arn: dlqArn },
    Signing: { Ref: templateSecretArn, Arn: templateSecretArn, Name: 'Stack-SigningSecret' },
  },
};
const tables: Record<string, TableSchema> = {
  T: {
    arn: tableArn,
    partitionKey: 'pk',
    sortKey: 'sk',
    indexes: { gsi1: { partitionKey: 'gsi1pk', sortKey: 'gsi1sk' }, gsi2: { partitionKey: 'gsi2pk', sortKey: 'gsi2sk' } },
  },
  Other: { arn: `arn:aws:dynamodb:us-east-1:${account}:table/Other`, partitionKey: 'id', indexes: {} },
};
const ctx: ClassifyContext = { resolver, tables, s3Hosts: ['s3.localtest'] };

function checksOf(req: RawRequest, c: ClassifyContext = ctx): AuthzCheck[] {
  const out = classifyRequest(req, c);
  if (out.kind !== 'classified') throw new Error(`unclassified: ${out.reason}`);
  return out.checks;
}
function reasonOf(req: RawRequest, c: ClassifyContext = ctx): string {
  const out = classifyRequest(req, c);
  if (out.kind !== 'unclassified') throw new Error(`classified as ${JSON.stringify(out.checks)}`);
  return out.reason;
}

const ddb = capturingClientConfig(endpoint);
const dynamo = new DynamoDBClient(ddb.config);
// Commands of one client, typed loosely: the client's send() overloads do not take a union of them.
const ddbReq = (command: object) => captureOne(ddb.sent, () => dynamo.send(command as never));
const S = (s: string) => ({ S: s });

describe('DynamoDB: the checks of what the SDK sends', () => {
  it('GetItem, PutItem, UpdateItem and DeleteItem: the table, with the item partition key as LeadingKeys', async () => {
    expect(checksOf(await ddbReq(new GetItemCommand({ TableName: 'T', Key: { pk: S('CONN#1'), sk: S('CONN') } })))).toEqual([
      { action: 'dynamodb:GetItem', resource: tableArn, conditions: { 'dynamodb:LeadingKeys': ['CONN#1'] } },
    ]);
    expect(checksOf(await ddbReq(new PutItemCommand({ TableName: 'T', Item: { pk: S('EVT#1'), sk: S('x'), n: { N: '1' } } })))).toEqual([
      { action: 'dynamodb:PutItem', resource: tableArn, conditions: { 'dynamodb:LeadingKeys': ['EVT#1'] } },
    ]);
    expect(
      checksOf(
        await ddbReq(
          new UpdateItemCommand({
            TableName: 'T',
            Key: { pk: S('SUB#1'), sk: S('SUB') },
            UpdateExpression: 'SET #a = :a',
            ExpressionAttributeNames: { '#a': 'a' },
            ExpressionAttributeValues: { ':a': S('v') },
          }),
        ),
      ),
    ).toEqual([{ action: 'dynamodb:UpdateItem', resource: tableArn, conditions: { 'dynamodb:LeadingKeys': ['SUB#1'] } }]);
    expect(
      checksOf(await ddbReq(new DeleteItemCommand({ TableName: 'T', Key: { pk: S('DLV#1'), sk: S('x') }, ReturnValues: 'ALL_OLD' }))),
    ).toEqual([
      {
        action: 'dynamodb:DeleteItem',
        resource: tableArn,
        conditions: { 'dynamodb:LeadingKeys': ['DLV#1'], 'dynamodb:ReturnValues': ['ALL_OLD'] },
      },
    ]);
  });

  it('Query on the table: LeadingKeys is the value the key condition fixes for pk (also next to BETWEEN ... AND)', async () => {
    const q = await ddbReq(
      new QueryCommand({
        TableName: 'T',
        KeyConditionExpression: '#sk BETWEEN :a AND :b AND #pk = :pk',
        ExpressionAttributeNames: { '#pk': 'pk', '#sk': 'sk' },
        ExpressionAttributeValues: { ':pk': S('EVH#e1'), ':a': S('1'), ':b': S('2') },
      }),
    );
    expect(checksOf(q)).toEqual([{ action: 'dynamodb:Query', resource: tableArn, conditions: { 'dynamodb:LeadingKeys': ['EVH#e1'] } }]);
    const plain = await ddbReq(
      new QueryCommand({ TableName: 'T', KeyConditionExpression: 'pk = :v', ExpressionAttributeValues: { ':v': S('CONN#2') } }),
    );
    expect(checksOf(plain)[0]?.conditions).toEqual({ 'dynamodb:LeadingKeys': ['CONN#2'] });
  });

  it("Query on an index: the index ARN, LeadingKeys the index's partition key", async () => {
    const q = await ddbReq(
      new QueryCommand({
        TableName: 'T',
        IndexName: 'gsi1',
        KeyConditionExpression: '#pk = :pk AND begins_with(#sk, :sk)',
        ExpressionAttributeNames: { '#pk': 'gsi1pk', '#sk': 'gsi1sk' },
        ExpressionAttributeValues: { ':pk': S('ROUTE#github#push'), ':sk': S('A') },
      }),
    );
    expect(checksOf(q)).toEqual([
      { action: 'dynamodb:Query', resource: `${tableArn}/index/gsi1`, conditions: { 'dynamodb:LeadingKeys': ['ROUTE#github#push'] } },
    ]);
  });

  it("a Query that does not fix the partition key, or names the table's key on an index, is unclassified", async () => {
    const onIndexWithTableKey = await ddbReq(
      new QueryCommand({
        TableName: 'T',
        IndexName: 'gsi1',
        KeyConditionExpression: 'pk = :v',
        ExpressionAttributeValues: { ':v': S('x') },
      }),
    );
    expect(reasonOf(onIndexWithTableKey)).toContain('does not fix gsi1pk');
    const unknownIndex = await ddbReq(
      new QueryCommand({
        TableName: 'T',
        IndexName: 'gsi9',
        KeyConditionExpression: 'pk = :v',
        ExpressionAttributeValues: { ':v': S('x') },
      }),
    );
    expect(reasonOf(unknownIndex)).toContain('index gsi9');
  });

  it('BatchGetItem and BatchWriteItem: one check per table under the batch action, with every partition key', async () => {
    const get = await ddbReq(
      new BatchGetItemCommand({
        RequestItems: {
          T: {
            Keys: [
              { pk: S('A#1'), sk: S('1') },
              { pk: S('A#2'), sk: S('1') },
            ],
          },
          Other: { Keys: [{ id: S('o') }] },
        },
      }),
    );
    expect(checksOf(get)).toEqual([
      { action: 'dynamodb:BatchGetItem', resource: tableArn, conditions: { 'dynamodb:LeadingKeys': ['A#1', 'A#2'] } },
      { action: 'dynamodb:BatchGetItem', resource: tables.Other?.arn, conditions: { 'dynamodb:LeadingKeys': ['o'] } },
    ]);
    const write = await ddbReq(
      new BatchWriteItemCommand({
        RequestItems: {
          T: [
            { PutRequest: { Item: { pk: S('EVH#1'), sk: S('a') } } },
            { PutRequest: { Item: { pk: S('EVH#1'), sk: S('b') } } },
            { DeleteRequest: { Key: { pk: S('DLV#9'), sk: S('a') } } },
          ],
        },
      }),
    );
    expect(checksOf(write)).toEqual([
      { action: 'dynamodb:BatchWriteItem', resource: tableArn, conditions: { 'dynamodb:LeadingKeys': ['EVH#1', 'DLV#9'] } },
    ]);
  });

  it('transactions: each item under its own action (ConditionCheck -> ConditionCheckItem), with its own key', async () => {
    const write = await ddbReq(
      new TransactWriteItemsCommand({
        TransactItems: [
          { Put: { TableName: 'T', Item: { pk: S('P#1'), sk: S('1') } } },
          {
            Update: {
              TableName: 'T',
              Key: { pk: S('U#1'), sk: S('1') },
              UpdateExpression: 'SET a = :a',
              ExpressionAttributeValues: { ':a': S('1') },
            },
          },
          { Delete: { TableName: 'T', Key: { pk: S('D#1'), sk: S('1') } } },
          { ConditionCheck: { TableName: 'Other', Key: { id: S('C#1') }, ConditionExpression: 'attribute_exists(id)' } },
        ],
      }),
    );
    expect(checksOf(write).map((c) => [c.action, c.resource, c.conditions['dynamodb:LeadingKeys']])).toEqual([
      ['dynamodb:PutItem', tableArn, ['P#1']],
      ['dynamodb:UpdateItem', tableArn, ['U#1']],
      ['dynamodb:DeleteItem', tableArn, ['D#1']],
      ['dynamodb:ConditionCheckItem', tables.Other?.arn, ['C#1']],
    ]);
    const get = await ddbReq(
      new TransactGetItemsCommand({ TransactItems: [{ Get: { TableName: 'T', Key: { pk: S('G#1'), sk: S('1') } } }] }),
    );
    expect(checksOf(get)).toEqual([{ action: 'dynamodb:GetItem', resource: tableArn, conditions: { 'dynamodb:LeadingKeys': ['G#1'] } }]);
  });

  it('Scan sets no LeadingKeys; DescribeTable and CreateTable check the table ARN', async () => {
    expect(checksOf(await ddbReq(new ScanCommand({ TableName: 'T' })))).toEqual([
      { action: 'dynamodb:Scan', resource: tableArn, conditions: {} },
    ]);
    expect(checksOf(await ddbReq(new DescribeTableCommand({ TableName: 'T' })))).toEqual([
      { action: 'dynamodb:DescribeTable', resource: tableArn, conditions: {} },
    ]);
    const create = await ddbReq(
      new CreateTableCommand({
        TableName: 'New',
        BillingMode: 'PAY_PER_REQUEST',
        AttributeDefinitions: [{ AttributeName: 'id', AttributeType: 'S' }],
        KeySchema: [{ AttributeName: 'id', KeyType: 'HASH' }],
      }),
    );
    expect(checksOf(create)).toEqual([
      { action: 'dynamodb:CreateTable', resource: `arn:aws:dynamodb:us-east-1:${account}:table/New`, conditions: {} },
    ]);
  });

  it('an operation it does not know, an item operation on an unknown table, or a malformed body is unclassified', async () => {
    expect(reasonOf(await ddbReq(new ExecuteStatementCommand({ Statement: 'SELECT * FROM T' })))).toContain(
      'ExecuteStatement is not classified',
    );
    expect(reasonOf(await ddbReq(new GetItemCommand({ TableName: 'Nope', Key: { pk: S('x'), sk: S('y') } })))).toContain('table Nope');
    expect(reasonOf(await ddbReq(new GetItemCommand({ TableName: 'T', Key: { sk: S('y') } })))).toContain('Key.pk');
    const garbled: RawRequest = { method: 'POST', path: '/', headers: { 'X-Amz-Target': 'DynamoDB_20120810.GetItem' }, body: '{nope' };
    expect(classifyRequest(garbled, ctx)).toEqual({
      kind: 'unclassified',
      service: 'dynamodb',
      operation: 'GetItem',
      reason: 'the body is not JSON',
    });
  });
});

const sqsCap = capturingClientConfig(endpoint);
const sqs = new SQSClient(sqsCap.config);
const sqsReq = (command: object) => captureOne(sqsCap.sent, () => sqs.send(command as never));

describe('SQS: the JSON protocol the SDK speaks, and the query protocol', () => {
  it('maps each operation to its action on the queue the URL names; batches to their single-message action', async () => {
    const cases: [object, string][] = [
      [new SendMessageCommand({ QueueUrl: queueUrl, MessageBody: 'x' }), 'sqs:SendMessage'],
      [new SendMessageBatchCommand({ QueueUrl: queueUrl, Entries: [{ Id: 'a', MessageBody: 'x' }] }), 'sqs:SendMessage'],
      [new ReceiveMessageCommand({ QueueUrl: queueUrl, MaxNumberOfMessages: 10 }), 'sqs:ReceiveMessage'],
      [new DeleteMessageBatchCommand({ QueueUrl: queueUrl, Entries: [{ Id: 'a', ReceiptHandle: 'r' }] }), 'sqs:DeleteMessage'],
      [
        new ChangeMessageVisibilityBatchCommand({ QueueUrl: queueUrl, Entries: [{ Id: 'a', ReceiptHandle: 'r', VisibilityTimeout: 0 }] }),
        'sqs:ChangeMessageVisibility',
      ],
      [new GetQueueAttributesCommand({ QueueUrl: queueUrl, AttributeNames: ['All'] }), 'sqs:GetQueueAttributes'],
      [new PurgeQueueCommand({ QueueUrl: queueUrl }), 'sqs:PurgeQueue'],
      [new GetQueueUrlCommand({ QueueName: 'work-queue' }), 'sqs:GetQueueUrl'],
    ];
    for (const [command, action] of cases) {
      const req = await sqsReq(command);
      expect(req.headers['x-amz-target']).toMatch(/^AmazonSQS\./);
      expect(checksOf(req)).toEqual([{ action, resource: queueArn, conditions: {} }]);
    }
  });

  it('message move tasks check the source queue ARN', async () => {
    expect(checksOf(await sqsReq(new StartMessageMoveTaskCommand({ SourceArn: dlqArn })))).toEqual([
      { action: 'sqs:StartMessageMoveTask', resource: dlqArn, conditions: {} },
    ]);
    expect(checksOf(await sqsReq(new ListMessageMoveTasksCommand({ SourceArn: dlqArn })))[0]?.action).toBe('sqs:ListMessageMoveTasks');
  });

  it('a queue URL the resolver does not know maps by its /<account>/<name> path; one without it is unclassified', async () => {
    const other = await sqsReq(new SendMessageCommand({ QueueUrl: `http://elsewhere:1/${account}/other-q`, MessageBody: 'x' }));
    expect(checksOf(other)[0]?.resource).toBe(`arn:aws:sqs:us-east-1:${account}:other-q`);
    const bad = await sqsReq(new SendMessageCommand({ QueueUrl: 'http://elsewhere:1/q', MessageBody: 'x' }));
    expect(reasonOf(bad)).toContain('names no known queue');
  });

  it('reads the query protocol: Action and QueueUrl in the form body, or the queue in the path', () => {
    const form = (body: string, path = '/'): RawRequest => ({
      method: 'POST',
      path,
      headers: { host: 'aws.localtest:4566', 'content-type': 'application/x-www-form-urlencoded' },
      body,
    });
    expect(checksOf(form(`Action=SendMessage&QueueUrl=${encodeURIComponent(queueUrl)}&MessageBody=x`))).toEqual([
      { action: 'sqs:SendMessage', resource: queueArn, conditions: {} },
    ]);
    expect(checksOf(form('Action=DeleteMessageBatch&DeleteMessageBatchRequestEntry.1.Id=a', `/${account}/work-queue`))).toEqual([
      { action: 'sqs:DeleteMessage', resource: queueArn, conditions: {} },
    ]);
    expect(reasonOf(form('Action=CreateQueue&QueueName=x'))).toContain('CreateQueue is not classified');
  });

  it('an unknown AmazonSQS target is unclassified', () => {
    const req: RawRequest = {
      method: 'POST',
      path: '/',
      headers: { 'x-amz-target': 'AmazonSQS.TagQueue' },
      body: `{"QueueUrl":"${queueUrl}"}`,
    };
    expect(reasonOf(req)).toContain('TagQueue is not classified');
  });
});

const objectArn = (key: string) => `arn:aws:s3:::payloads/${key}`;

describe('S3: REST requests, path style and virtual-host style', () => {
  for (const forcePathStyle of [true, false]) {
    const cap = capturingClientConfig('http://s3.localtest:4566', { forcePathStyle });
    const s3 = new S3Client(cap.config);
    const s3Req = (command: object) => captureOne(cap.sent, () => s3.send(command as never));

    it(`${forcePathStyle ? 'path' : 'virtual-host'} style: objects and listing`, async () => {
      const key = 'bodies/a b+c.bin';
      const put = await s3Req(new PutObjectCommand({ Bucket: 'payloads', Key: key, Body: Buffer.from('x') }));
      expect(put.headers.host?.toString().startsWith(forcePathStyle ? 's3.localtest' : 'payloads.s3.localtest')).toBe(true);
      expect(checksOf(put)).toEqual([{ action: 's3:PutObject', resource: objectArn(key), conditions: {} }]);
      expect(checksOf(await s3Req(new GetObjectCommand({ Bucket: 'payloads', Key: key })))).toEqual([
        { action: 's3:GetObject', resource: objectArn(key), conditions: {} },
      ]);
      expect(checksOf(await s3Req(new HeadObjectCommand({ Bucket: 'payloads', Key: key })))).toEqual([
        { action: 's3:GetObject', resource: objectArn(key), conditions: {} },
      ]);
      expect(checksOf(await s3Req(new DeleteObjectCommand({ Bucket: 'payloads', Key: key })))).toEqual([
        { action: 's3:DeleteObject', resource: objectArn(key), conditions: {} },
      ]);
      expect(checksOf(await s3Req(new ListObjectsV2Command({ Bucket: 'payloads', Prefix: 'bodies/' })))).toEqual([
        { action: 's3:ListBucket', resource: 'arn:aws:s3:::payloads', conditions: { 's3:prefix': ['bodies/'] } },
      ]);
    });
  }

  it('a sub-resource it does not know is unclassified', () => {
    const req: RawRequest = {
      method: 'PUT',
      path: '/payloads/k?tagging',
      headers: { host: 's3.localtest', authorization: 'AWS4-HMAC-SHA256 Credential=AK/20260101/us-east-1/s3/aws4_request' },
      body: '',
    };
    expect(reasonOf(req)).toContain('tagging');
  });
});

const smCap = capturingClientConfig(endpoint);
const sm = new SecretsManagerClient(smCap.config);
const smReq = (command: object) => captureOne(smCap.sent, () => sm.send(command as never));

describe('Secrets Manager: the secret each call names', () => {
  const runtimeName = 'app/dev/connections/c1';
  const runtimeArn = secretArnFor(resolver, runtimeName);

  it('a template secret by ARN, by name or by ARN without its suffix resolves to its full ARN', async () => {
    for (const SecretId of [
      templateSecretArn,
      'Stack-SigningSecret',
      `arn:aws:secretsmanager:us-east-1:${account}:secret:Stack-SigningSecret`,
    ]) {
      expect(checksOf(await smReq(new GetSecretValueCommand({ SecretId })))).toEqual([
        {
          action: 'secretsmanager:GetSecretValue',
          resource: templateSecretArn,
          conditions: { 'secretsmanager:SecretId': [templateSecretArn] },
        },
      ]);
    }
  });

  it('a secret made at run time by name: Put, Restore, Describe, Delete on its ARN; Create on the ARN it will get', async () => {
    for (const [command, action] of [
      [new PutSecretValueCommand({ SecretId: runtimeName, SecretString: 'v' }), 'secretsmanager:PutSecretValue'],
      [new RestoreSecretCommand({ SecretId: runtimeName }), 'secretsmanager:RestoreSecret'],
      [new DescribeSecretCommand({ SecretId: runtimeName }), 'secretsmanager:DescribeSecret'],
    ] as const) {
      expect(checksOf(await smReq(command))).toEqual([
        { action, resource: runtimeArn, conditions: { 'secretsmanager:SecretId': [runtimeArn] } },
      ]);
    }
    expect(checksOf(await smReq(new DeleteSecretCommand({ SecretId: runtimeName, ForceDeleteWithoutRecovery: true })))).toEqual([
      {
        action: 'secretsmanager:DeleteSecret',
        resource: runtimeArn,
        conditions: { 'secretsmanager:SecretId': [runtimeArn], 'secretsmanager:ForceDeleteWithoutRecovery': ['true'] },
      },
    ]);
    expect(checksOf(await smReq(new CreateSecretCommand({ Name: runtimeName, SecretString: 'v' })))).toEqual([
      { action: 'secretsmanager:CreateSecret', resource: runtimeArn, conditions: { 'secretsmanager:Name': [runtimeName] } },
    ]);
  });

  it("the caller's secretArn resolver decides, and one that knows no such secret makes the call unclassified", async () => {
    const req = await smReq(new GetSecretValueCommand({ SecretId: 'x' }));
    expect(checksOf(req, { ...ctx, secretArn: () => 'arn:aws:secretsmanager:us-east-1:1:secret:x-AAAAAA' })[0]?.resource).toBe(
      'arn:aws:secretsmanager:us-east-1:1:secret:x-AAAAAA',
    );
    expect(reasonOf(req, { ...ctx, secretArn: () => undefined })).toContain('names no known secret');
  });

  it('an unknown target is unclassified', () => {
    const req: RawRequest = { method: 'POST', path: '/', headers: { 'x-amz-target': 'secretsmanager.BatchGetSecretValue' }, body: '{}' };
    expect(reasonOf(req)).toContain('BatchGetSecretValue');
  });
});

const kmsCap = capturingClientConfig(endpoint);
const kms = new KMSClient(kmsCap.config);
const kmsReq = (command: object) => captureOne(kmsCap.sent, () => kms.send(command as never));
const keyId = '1234abcd-12ab-34cd-56ef-1234567890ab';
const keyArn = `arn:aws:kms:us-east-1:${account}:key/${keyId}`;

describe('KMS: the key each call names, and its encryption context', () => {
  it('Encrypt, Decrypt and GenerateDataKey are checked on the key, by ARN or by key id, with the context as condition keys', async () => {
    const context = { row: 'APPTOKEN#31' };
    const conditions = { 'kms:EncryptionContextKeys': ['row'], 'kms:EncryptionContext:row': ['APPTOKEN#31'] };
    for (const [command, action] of [
      [new EncryptCommand({ KeyId: keyArn, Plaintext: Buffer.from('x'), EncryptionContext: context }), 'kms:Encrypt'],
      [new DecryptCommand({ KeyId: keyId, CiphertextBlob: Buffer.from('c'), EncryptionContext: context }), 'kms:Decrypt'],
      [new GenerateDataKeyCommand({ KeyId: keyArn, KeySpec: 'AES_256', EncryptionContext: context }), 'kms:GenerateDataKey'],
    ] as const) {
      expect(checksOf(await kmsReq(command))).toEqual([{ action, resource: keyArn, conditions }]);
    }
  });

  it('a Decrypt that does not name its key, or a key named by alias, is unclassified (the suite reads no ciphertext)', async () => {
    expect(reasonOf(await kmsReq(new DecryptCommand({ CiphertextBlob: Buffer.from('c') })))).toContain('without KeyId');
    expect(reasonOf(await kmsReq(new EncryptCommand({ KeyId: 'alias/tokens', Plaintext: Buffer.from('x') })))).toContain('alias');
    const other: RawRequest = { method: 'POST', path: '/', headers: { 'x-amz-target': 'TrentService.ScheduleKeyDeletion' }, body: '{}' };
    expect(reasonOf(other)).toContain('ScheduleKeyDeletion');
  });
});

describe('requests of no known service', () => {
  it('an unknown X-Amz-Target prefix, or a request with no target, scope or hint, is unclassified', () => {
    expect(reasonOf({ method: 'POST', path: '/', headers: { 'x-amz-target': 'Kinesis_20131202.PutRecord' }, body: '{}' })).toContain(
      'Kinesis',
    );
    expect(reasonOf({ method: 'GET', path: '/x', headers: {}, body: '' })).toContain('names the service');
  });
});

/**
 * Every call the product's AWS adapters make (shared/adapters/aws/) is classified: the proxy
 * would otherwise fail a flow on a call it cannot judge.
 */
describe("the product's AWS adapters: every call they make is classified", () => {
  const clock = { now: () => 0 };
  const swallow = async (sent: RawRequest[], call: () => Promise<unknown>) => {
    const before = sent.length;
    await call().catch(() => undefined);
    return sent.slice(before);
  };
  const expectClassified = (reqs: RawRequest[], actions: string[]) => {
    expect(reqs.length).toBeGreaterThan(0);
    expect(reqs.flatMap((r) => checksOf(r).map((c) => c.action))).toEqual(actions);
  };

  it('DynamoStore and ensureTable', async () => {
    const store = new DynamoStore('T', dynamo, clock);
    expectClassified(await swallow(ddb.sent, () => store.get({ pk: 'CONN#1', sk: 'CONN' })), ['dynamodb:GetItem']);
    expectClassified(await swallow(ddb.sent, () => store.put({ pk: 'EVT#1', sk: 'x' })), ['dynamodb:PutItem']);
    expectClassified(await swallow(ddb.sent, () => store.putAll([{ pk: 'EVH#1', sk: 'a' }])), ['dynamodb:BatchWriteItem']);
    expectClassified(await swallow(ddb.sent, () => store.delete({ pk: 'DLV#1', sk: 'x' }, { ifExists: true })), ['dynamodb:DeleteItem']);
    for (const input of [
      { pk: 'EVH#1', skPrefix: 'a' },
      { pk: 'ROUTE#x', index: 'gsi1' as const },
      { pk: 'CONNS', index: 'gsi2' as const, skBefore: 'z' },
    ]) {
      const [req] = await swallow(ddb.sent, () => store.query(input));
      expect(checksOf(req as RawRequest)[0]?.conditions['dynamodb:LeadingKeys']).toEqual([input.pk]);
    }
    expectClassified(await swallow(ddb.sent, () => ensureTable(dynamo, 'T')), ['dynamodb:DescribeTable']);
  });

  it('SqsQueue and SqsDeadLetterQueue', async () => {
    const queue = new SqsQueue(sqs, queueUrl);
    expectClassified(await swallow(sqsCap.sent, () => queue.sendBatch([{ id: 'a', body: 'x' }])), ['sqs:SendMessage']);
    expectClassified(await swallow(sqsCap.sent, () => queue.changeVisibility('r', 5)), ['sqs:ChangeMessageVisibility']);
    const dlq = new SqsDeadLetterQueue(sqs, { dlqUrl: `${endpoint}/${account}/work-dlq`, sourceQueueUrl: queueUrl });
    const listed = await swallow(sqsCap.sent, () => dlq.list(5));
    expectClassified(listed, ['sqs:ReceiveMessage']);
    expect(checksOf(listed[0] as RawRequest)[0]?.resource).toBe(dlqArn);
    expectClassified(await swallow(sqsCap.sent, () => dlq.redrive()), ['sqs:ReceiveMessage']);
  });

  it('S3BlobStore', async () => {
    const cap = capturingClientConfig('http://s3.localtest:4566', { forcePathStyle: true });
    const client = new S3Client(cap.config);
    const blobs = new S3BlobStore(client, 'payloads', 'p/');
    expectClassified(await swallow(cap.sent, () => blobs.put('k', Buffer.from('x'))), ['s3:PutObject']);
    expectClassified(await swallow(cap.sent, () => blobs.get('k')), ['s3:GetObject']);
    expectClassified(await swallow(cap.sent, () => blobs.delete('k')), ['s3:DeleteObject']);
    expect(checksOf(cap.sent[0] as RawRequest)[0]?.resource).toBe(objectArn('p/k'));
  });

  it('SecretsManagerStore and readSecretString', async () => {
    const secrets = new SecretsManagerStore(sm, 'app/dev/', clock);
    expectClassified(await swallow(smCap.sent, () => secrets.get('connections/c1')), ['secretsmanager:GetSecretValue']);
    expectClassified(await swallow(smCap.sent, () => secrets.put('connections/c1', 'v')), ['secretsmanager:PutSecretValue']);
    expectClassified(await swallow(smCap.sent, () => secrets.delete('connections/c1')), ['secretsmanager:DeleteSecret']);
    expectClassified(await swallow(smCap.sent, () => readSecretString(sm, templateSecretArn)), ['secretsmanager:GetSecretValue']);
  });

  it('the KMS token sealer', async () => {
    const sealer = kmsTokenSealer(keyArn, kms);
    expectClassified(await swallow(kmsCap.sent, () => sealer.seal('t', 'APPTOKEN#1')), ['kms:Encrypt']);
    expectClassified(await swallow(kmsCap.sent, () => sealer.open('Yw==', 'APPTOKEN#1')), ['kms:Decrypt']);
  });
});
