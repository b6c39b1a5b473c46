import {
  type AttributeValue,
  BatchWriteItemCommand,
  type CreateTableCommandInput,
  CreateTableCommand,
  DeleteTableCommand,
  type DynamoDBClient,
  ScanCommand,
  type TableDescription,
  type WriteRequest,
} from '@aws-sdk/client-dynamodb';

/**
 * A table made by an earlier version gets the indexes the design added since. On AWS the stack
 * adds them (CloudFormation, one per update); the embedded DynamoDB cannot add an index to a
 * table (its UpdateTable takes none), so the table is rebuilt: its items copied aside to
 * `<name>.rebuild`, the table made again with every index, the items copied back (which fills
 * the new indexes) and the copy deleted. A start that finds the copy without the
 * table (a crash in between) finishes the rebuild from the copy before anything reads the table.
 * Used where `ensureTable` is (the local runtime, tests, benchmarks), never by a function on AWS.
 */

export interface TableOps {
  describe(tableName: string): Promise<TableDescription | undefined>;
  waitActive(tableName: string): Promise<void>;
  definition(tableName: string): CreateTableCommandInput;
}

const copyName = (tableName: string) => `${tableName}.rebuild`;

function missingIndexes(ops: TableOps, tableName: string, table: TableDescription) {
  const has = new Set((table.GlobalSecondaryIndexes ?? []).map((ix) => ix.IndexName));
  return (ops.definition(tableName).GlobalSecondaryIndexes ?? []).filter((ix) => !has.has(ix.IndexName));
}

export async function addMissingIndexes(client: DynamoDBClient, ops: TableOps, tableName: string, table: TableDescription): Promise<void> {
  if (missingIndexes(ops, tableName, table).length > 0) await rebuild(client, ops, tableName);
}

/** Finishes a rebuild a crash cut short: true when there was one to finish (the table is then whole). */
export async function resumeRebuild(client: DynamoDBClient, ops: TableOps, tableName: string): Promise<boolean> {
  const copy = copyName(tableName);
  if (!(await ops.describe(copy))) return false;
  if (!(await ops.describe(tableName))) await client.send(new CreateTableCommand(ops.definition(tableName)));
  await ops.waitActive(tableName);
  await copyItems(client, copy, tableName);
  await dropTable(client, ops, copy);
  return true;
}

async function rebuild(client: DynamoDBClient, ops: TableOps, tableName: string): Promise<void> {
  const copy = copyName(tableName);
  // A copy beside a whole table is from a rebuild cut short before the table was dropped: made again.
  if (await ops.describe(copy)) await dropTable(client, ops, copy);
  const { AttributeDefinitions, KeySchema } = ops.definition(copy);
  const keyNames = new Set(KeySchema?.map((k) => k.AttributeName));
  await client.send(
    new CreateTableCommand({
      TableName: copy,
      BillingMode: 'PAY_PER_REQUEST',
      KeySchema,
      AttributeDefinitions: AttributeDefinitions?.filter((a) => keyNames.has(a.AttributeName)),
    }),
  );
  await ops.waitActive(copy);
  await copyItems(client, tableName, copy);
  await dropTable(client, ops, tableName);
  await resumeRebuild(client, ops, tableName);
}

async function dropTable(client: DynamoDBClient, ops: TableOps, tableName: string): Promise<void> {
  await client.send(new DeleteTableCommand({ TableName: tableName }));
  for (let wait = 5; await ops.describe(tableName); wait = Math.min(wait * 2, 500)) await new Promise((r) => setTimeout(r, wait));
}

async function copyItems(client: DynamoDBClient, from: string, to: string): Promise<void> {
  let start: Record<string, AttributeValue> | undefined;
  do {
    const page = await client.send(new ScanCommand({ TableName: from, Limit: 500, ...(start ? { ExclusiveStartKey: start } : {}) }));
    const items = page.Items ?? [];
    for (let i = 0; i < items.length; i += 25) {
      let left: WriteRequest[] = items.slice(i, i + 25).map((Item) => ({ PutRequest: { Item } }));
      for (let round = 0; left.length > 0; round++) {
        if (round > 10) throw new Error(`copying ${from} to ${to}: items left unprocessed`);
        const out = await client.send(new BatchWriteItemCommand({ RequestItems: { [to]: left } }));
        left = out.UnprocessedItems?.[to] ?? [];
      }
    }
    start = page.LastEvaluatedKey;
  } while (start);
}
