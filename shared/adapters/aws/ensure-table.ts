import {
  CreateTableCommand,
  type CreateTableCommandInput,
  DescribeTableCommand,
  type DynamoDBClient,
  ResourceInUseException,
  ResourceNotFoundException,
  type TableDescription,
} from '@aws-sdk/client-dynamodb';
import { tableDesign, tableIndexes } from '../../store/table-design';
import { addMissingIndexes, resumeRebuild, type TableOps } from './table-rebuild';

/**
 * Creates the table (as the stack defines it) when it does not exist yet, gives a table made
 * by an earlier version the indexes it lacks, and returns once it is ACTIVE (a table still
 * CREATING answers ResourceNotFound). Used by the local runtime and tests against the embedded
 * DynamoDB; on AWS the stack owns the table.
 */
export async function ensureTable(client: DynamoDBClient, tableName: string, timeoutMs = 30_000): Promise<void> {
  const ops: TableOps = {
    describe: (name) => describe(client, name),
    waitActive: (name) => waitActive(client, name, timeoutMs),
    definition: tableDefinition,
  };
  const existing = await describe(client, tableName);
  if (existing) await addMissingIndexes(client, ops, tableName, existing);
  else if (!(await resumeRebuild(client, ops, tableName))) await createTable(client, tableName);
  await waitActive(client, tableName, timeoutMs);
}

export async function waitActive(client: DynamoDBClient, tableName: string, timeoutMs = 30_000): Promise<void> {
  const until = Date.now() + timeoutMs;
  for (let wait = 5; ; wait = Math.min(wait * 2, 500)) {
    const { Table } = await client.send(new DescribeTableCommand({ TableName: tableName }));
    if (Table?.TableStatus === 'ACTIVE') return;
    if (Date.now() > until) throw new Error(`Table ${tableName} is still ${Table?.TableStatus} after ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, wait));
  }
}

/** The table's description, or undefined when there is no such table. */
export async function describe(client: DynamoDBClient, tableName: string): Promise<TableDescription | undefined> {
  try {
    return (await client.send(new DescribeTableCommand({ TableName: tableName }))).Table;
  } catch (e) {
    if (e instanceof ResourceNotFoundException) return undefined;
    throw e;
  }
}

/** The table as the stack defines it (shared/store/table-design.ts), under `tableName`. */
export function tableDefinition(tableName: string): CreateTableCommandInput {
  const { partitionKey, sortKey } = tableDesign;
  return {
    TableName: tableName,
    BillingMode: 'PAY_PER_REQUEST',
    AttributeDefinitions: [partitionKey, sortKey, ...tableIndexes.flatMap((gsi) => [gsi.partitionKey, gsi.sortKey])].map((name) => ({
      AttributeName: name,
      AttributeType: 'S',
    })),
    KeySchema: [
      { AttributeName: partitionKey, KeyType: 'HASH' },
      { AttributeName: sortKey, KeyType: 'RANGE' },
    ],
    GlobalSecondaryIndexes: tableIndexes.map((gsi) => ({
      IndexName: gsi.name,
      KeySchema: [
        { AttributeName: gsi.partitionKey, KeyType: 'HASH' as const },
        { AttributeName: gsi.sortKey, KeyType: 'RANGE' as const },
      ],
      Projection:
        gsi.projection === 'all'
          ? { ProjectionType: 'ALL' as const }
          : { ProjectionType: 'INCLUDE' as const, NonKeyAttributes: [...gsi.projection] },
    })),
  };
}

async function createTable(client: DynamoDBClient, tableName: string): Promise<void> {
  try {
    await client.send(new CreateTableCommand(tableDefinition(tableName)));
  } catch (e) {
    if (!(e instanceof ResourceInUseException)) throw e;
  }
}
