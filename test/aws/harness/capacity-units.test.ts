import { describe, expect, it } from 'vitest';
import type { TableSchema } from '../iam/classify-request';
import { dynamoUnits } from './capacity-units';

const tables: Record<string, TableSchema> = {
  t: {
    arn: 'arn:aws:dynamodb:us-east-1:000000000000:table/t',
    partitionKey: 'pk',
    sortKey: 'sk',
    indexes: { gsi1: { partitionKey: 'gsi1pk' } },
  },
};
const put = (item: Record<string, unknown>) => JSON.stringify({ TableName: 't', Item: item });
const small = { pk: { S: 'EVT#1' }, sk: { S: 'A' } };

describe('DynamoDB request units as on-demand bills them', () => {
  it('charges a write unit per started KB of an item, and one more per index whose key the item carries', () => {
    expect(dynamoUnits('PutItem', put(small), '{}', tables)).toEqual({ read: 0, write: 1 });
    expect(dynamoUnits('PutItem', put({ ...small, gsi1pk: { S: 'EVTS' } }), '{}', tables)).toEqual({ read: 0, write: 2 });
    expect(dynamoUnits('PutItem', put({ ...small, body: { S: 'x'.repeat(1500) } }), '{}', tables).write).toBe(2);
  });

  it('counts every item of a batch, and twice every item of a transaction', () => {
    const batch = JSON.stringify({ RequestItems: { t: [{ PutRequest: { Item: small } }, { DeleteRequest: { Key: small } }] } });
    expect(dynamoUnits('BatchWriteItem', batch, '{}', tables).write).toBe(2);
    const tx = JSON.stringify({
      TransactItems: [{ Put: { TableName: 't', Item: small } }, { ConditionCheck: { TableName: 't', Key: small } }],
    });
    expect(dynamoUnits('TransactWriteItems', tx, '{}', tables).write).toBe(4);
  });

  it('charges reads per started 4 KB of what was read, half when eventually consistent, and a read for an item not found', () => {
    const item = { ...small, body: { S: 'x'.repeat(5000) } };
    expect(
      dynamoUnits('GetItem', JSON.stringify({ TableName: 't', Key: small, ConsistentRead: true }), JSON.stringify({ Item: item }), tables),
    ).toEqual({
      read: 2,
      write: 0,
    });
    expect(dynamoUnits('GetItem', JSON.stringify({ TableName: 't', Key: small }), '{}', tables).read).toBe(0.5);
    expect(dynamoUnits('Query', JSON.stringify({ TableName: 't' }), JSON.stringify({ Items: [small, small] }), tables).read).toBe(0.5);
  });
});
