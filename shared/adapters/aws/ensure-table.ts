import {
  CreateTableCommand,
  DescribeTableCommand,
  type DynamoDBClient,
  ResourceInUseException,
  ResourceNotFoundException,
} from '@aws-sdk/client-dynamodb';
import { tableDesign } from '../../store/table-design';

/**
 * Creates the table (as the stack defines it) when it does not exist yet, and returns once
 * it is ACTIVE (a table still CREATING answers ResourceNotFound). Used by the local runtime
 * and tests against the embedded DynamoDB; on AWS the stack owns the table.
 */
export async function ensureTable(client: DynamoDBClient, tableName: string, timeoutMs = 30_000): Promise<void> {
  await createTable(client, tableName);
  const until = Date.now() + timeoutMs;
  for (let wait = 5; ; wait = Math.min(wait * 2, 500)) {
    const { Table } = await client.send(new DescribeTableCommand({ TableName: tableName }));
    if (Table?.TableStatus === 'ACTIVE') return;
    if (Date.now() > until) throw new Error(`Table ${tableName} is still ${Table?.TableStatus} after ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, wait));
  }
}

async function createTable(client: DynamoDBClient, tableName: string): Promise<void> {
  try {
    await client.send(new DescribeTableCommand({ TableName: tableName }));
    return;
  } catch (e) {
    if (!(e instanceof ResourceNotFoundException)) throw e;
  }
  const { partitionKey, sortKey, gsi1, gsi2 } = tableDesign;
  try {
    await client.send(
      new CreateTableCommand({
        TableName: tableName,
        BillingMode: 'PAY_PER_REQUEST',
        AttributeDefinitions: [partitionKey, sortKey, gsi1.partitionKey, gsi1.sortKey, gsi2.partitionKey, gsi2.sortKey].map((name) => ({
          AttributeName: name,
          AttributeType: 'S',
        })),
        KeySchema: [
          { AttributeName: partitionKey, KeyType: 'HASH' },
          { AttributeName: sortKey, KeyType: 'RANGE' },
        ],
        GlobalSecondaryIndexes: [gsi1, gsi2].map((gsi) => ({
          IndexName: gsi.name,
          KeySchema: [
            { AttributeName: gsi.partitionKey, KeyType: 'HASH' as const },
            { AttributeName: gsi.sortKey, KeyType: 'RANGE' as const },
          ],
          Projection: { ProjectionType: 'ALL' as const },
        })),
      }),
    );
  } catch (e) {
    if (!(e instanceof ResourceInUseException)) throw e;
  }
}
