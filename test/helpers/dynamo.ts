import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { randomUUID } from 'node:crypto';
import { DynamoStore } from '../../shared/adapters/aws/dynamo-store';
import { ensureTable } from '../../shared/adapters/aws/ensure-table';
import { embeddedDynamoClientConfig, startEmbeddedDynamo, type EmbeddedDynamo } from '../../shared/adapters/local/embedded-dynamo';
import type { Clock } from '../../shared/ports';

// Kept here too: many tests import the clock with the store.
export { TestClock } from './test-clock';

let shared: EmbeddedDynamo | undefined;

/** One in-memory embedded DynamoDB per test file; each call gets a fresh table. */
export async function testStore(
  clock: Clock = { now: () => Date.now() },
): Promise<{ store: DynamoStore; client: DynamoDBClient; tableName: string; endpoint: string }> {
  shared ??= await startEmbeddedDynamo();
  const client = new DynamoDBClient(embeddedDynamoClientConfig(shared.endpoint));
  const tableName = `t-${randomUUID().slice(0, 8)}`;
  await ensureTable(client, tableName);
  return { store: new DynamoStore(tableName, client, clock), client, tableName, endpoint: shared.endpoint };
}

export async function stopTestDynamo(): Promise<void> {
  await shared?.close();
  shared = undefined;
}
