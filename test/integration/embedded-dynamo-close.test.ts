import { CreateTableCommand, DynamoDBClient, GetItemCommand, PutItemCommand } from '@aws-sdk/client-dynamodb';
import { describe, expect, it } from 'vitest';
import { embeddedDynamoClientConfig, startEmbeddedDynamo } from '../../shared/adapters/local/embedded-dynamo';

/**
 * The local runtime closes the embedded DynamoDB while its last requests may still be in flight
 * (a consumer finishing a message, a background round). Those requests may fail; closing must not
 * crash the process that started it.
 */
describe('closing the embedded DynamoDB', () => {
  it('with requests in flight resolves and crashes nothing', async () => {
    const crashes: unknown[] = [];
    const onCrash = (e: unknown) => crashes.push(e);
    process.on('uncaughtException', onCrash);
    process.on('unhandledRejection', onCrash);
    try {
      for (let round = 0; round < 8; round++) {
        const dynamo = await startEmbeddedDynamo();
        const client = new DynamoDBClient({ ...embeddedDynamoClientConfig(dynamo.endpoint), maxAttempts: 1 });
        await client.send(
          new CreateTableCommand({
            TableName: 'close-test',
            AttributeDefinitions: [{ AttributeName: 'pk', AttributeType: 'S' }],
            KeySchema: [{ AttributeName: 'pk', KeyType: 'HASH' }],
            BillingMode: 'PAY_PER_REQUEST',
          }),
        );
        let stop = false;
        const load = Array.from({ length: 16 }, async (_, w) => {
          for (let i = 0; !stop; i++) {
            const Key = { pk: { S: `k${w}-${i % 50}` } };
            await client.send(new PutItemCommand({ TableName: 'close-test', Item: { ...Key, v: { S: 'x'.repeat(200) } } })).catch(() => {});
            await client.send(new GetItemCommand({ TableName: 'close-test', Key })).catch(() => {});
          }
        });
        await new Promise((r) => setTimeout(r, 30 + round * 10));
        await dynamo.close();
        stop = true;
        await Promise.all(load);
        client.destroy();
      }
      // A crash of the thread reaches this process on the next turns of its event loop.
      await new Promise((r) => setTimeout(r, 100));
      expect(crashes.map(String)).toEqual([]);
    } finally {
      process.off('uncaughtException', onCrash);
      process.off('unhandledRejection', onCrash);
    }
  });
});
