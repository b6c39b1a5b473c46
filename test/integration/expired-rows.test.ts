import { GetItemCommand, PutItemCommand } from '@aws-sdk/client-dynamodb';
import { afterAll, describe, expect, it } from 'vitest';
import { ExpiredRows } from '../../shared/adapters/local/expired-rows';
import { stopTestDynamo, TestClock, testStore } from '../helpers/dynamo';

afterAll(() => stopTestDynamo());

const nowMs = Date.UTC(2026, 10, 28, 12, 0, 0);
const seconds = Math.floor(nowMs / 1000);

async function table() {
  const clock = new TestClock(nowMs);
  const { client, tableName } = await testStore(clock);
  const put = (pk: string, ttl?: number) =>
    client.send(
      new PutItemCommand({
        TableName: tableName,
        Item: { pk: { S: pk }, sk: { S: 'X' }, ...(ttl === undefined ? {} : { ttl: { N: String(ttl) } }) },
      }),
    );
  const has = async (pk: string) =>
    (await client.send(new GetItemCommand({ TableName: tableName, Key: { pk: { S: pk }, sk: { S: 'X' } } }))).Item !== undefined;
  return { clock, client, tableName, put, has };
}

describe('the embedded table gives expired rows back, as DynamoDB TTL does', () => {
  it('deletes the rows whose ttl has passed and keeps the live ones and the ones without a ttl', async () => {
    const t = await table();
    await Promise.all(Array.from({ length: 120 }, (_, i) => t.put(`old-${i}`, seconds - 10)));
    await t.put('live', seconds + 3600);
    await t.put('forever');
    const rows = new ExpiredRows(t.client, t.tableName, t.clock, 50);
    let deleted = 0;
    for (let round = 0; round < 10; round++) {
      const page = await rows.sweepPage();
      deleted += page.deleted;
      if (!page.more) break;
    }
    expect(deleted).toBe(120);
    expect(await t.has('old-7')).toBe(false);
    expect(await t.has('live')).toBe(true);
    expect(await t.has('forever')).toBe(true);
  });

  it('keeps a row renewed after the page that found it expired was read', async () => {
    const t = await table();
    await t.put('lease', seconds - 1);
    const rows = new ExpiredRows(t.client, t.tableName, t.clock);
    // The renewal lands between the read and the delete: the delete is conditional on the ttl it read.
    const send = t.client.send.bind(t.client);
    t.client.send = (async (command: { constructor: { name: string } }) => {
      if (command.constructor.name === 'DeleteItemCommand') await t.put('lease', seconds + 600);
      return send(command as never);
    }) as typeof t.client.send;
    expect(await rows.sweepPage()).toEqual({ deleted: 0, more: false });
    t.client.send = send;
    expect(await t.has('lease')).toBe(true);
  });

  it('walks on from where it stopped, so a large table is covered page by page', async () => {
    const t = await table();
    await Promise.all(Array.from({ length: 70 }, (_, i) => t.put(`row-${i}`, seconds + 60)));
    const rows = new ExpiredRows(t.client, t.tableName, t.clock, 50);
    expect((await rows.sweepPage()).more).toBe(true);
    t.clock.advance(120_000);
    // The second page holds only what the first did not: the walk ends there.
    const second = await rows.sweepPage();
    expect(second.more).toBe(false);
    expect(second.deleted).toBe(20);
  });
});
