import { createRequire } from 'node:module';
import { CreateTableCommand, DynamoDBClient, PutItemCommand, QueryCommand, ScanCommand } from '@aws-sdk/client-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { embeddedDynamoClientConfig } from '../../shared/adapters/local/embedded-dynamo';
import { closeLevelIteratorsOnReturn } from '../../shared/adapters/local/level-iterators.mjs';

/**
 * dynalite as the embedded DynamoDB's thread runs it, here in the test's own process so that its
 * LevelDB resources can be counted: every Query and Scan left two LevelDB iterators open for the
 * life of the process (each pinning memtables and table files: the runtime's memory grew without
 * bound under load). Counted at abstract-level, the binding every iterator is attached to.
 */
const fromDynalite = createRequire(createRequire(import.meta.url).resolve('dynalite'));
const abstractLevel = createRequire(createRequire(fromDynalite.resolve('level')).resolve('classic-level'))('abstract-level') as {
  AbstractLevel: { prototype: { attachResource(r: unknown): void; detachResource(r: unknown): void } };
};
const dynalite = fromDynalite('dynalite') as (o: object) => import('node:http').Server;

let open = 0;
const proto = abstractLevel.AbstractLevel.prototype;
const attach = proto.attachResource;
const detach = proto.detachResource;
let server: import('node:http').Server;
let client: DynamoDBClient;
const table = 'iterators';

beforeAll(async () => {
  proto.attachResource = function (r) {
    open++;
    return attach.call(this, r);
  };
  proto.detachResource = function (r) {
    open--;
    return detach.call(this, r);
  };
  closeLevelIteratorsOnReturn();
  server = dynalite({ createTableMs: 0 });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as import('node:net').AddressInfo;
  client = new DynamoDBClient(embeddedDynamoClientConfig(`http://127.0.0.1:${port}`));
  await client.send(
    new CreateTableCommand({
      TableName: table,
      AttributeDefinitions: [
        { AttributeName: 'pk', AttributeType: 'S' },
        { AttributeName: 'sk', AttributeType: 'S' },
      ],
      KeySchema: [
        { AttributeName: 'pk', KeyType: 'HASH' },
        { AttributeName: 'sk', KeyType: 'RANGE' },
      ],
      BillingMode: 'PAY_PER_REQUEST',
    }),
  );
  for (let i = 0; i < 10; i++) await client.send(new PutItemCommand({ TableName: table, Item: { pk: { S: 'p' }, sk: { S: `s${i}` } } }));
});

afterAll(async () => {
  proto.attachResource = attach;
  proto.detachResource = detach;
  client?.destroy();
  await new Promise((r) => server?.close(r));
});

describe('the embedded DynamoDB reading LevelDB', () => {
  it('leaves no iterator open after Queries and Scans, read to the end or cut short by a Limit', async () => {
    const before = open;
    for (let i = 0; i < 20; i++) {
      const Key = { KeyConditionExpression: 'pk = :p', ExpressionAttributeValues: { ':p': { S: 'p' } } };
      const all = await client.send(new QueryCommand({ TableName: table, ...Key }));
      expect(all.Items).toHaveLength(10);
      await client.send(new QueryCommand({ TableName: table, ...Key, Limit: 2 }));
      await client.send(new ScanCommand({ TableName: table, Limit: 3 }));
    }
    // Closing is asynchronous: the last ones close within a few turns of the event loop.
    for (let t = 0; t < 50 && open > before; t++) await new Promise((r) => setTimeout(r, 10));
    expect(open - before).toBe(0);
  });
});
