import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { describe, expect, it } from 'vitest';
import { DynamoStore } from '../../shared/adapters/aws/dynamo-store';
import { withoutSdkLogging } from '../../shared/adapters/aws/sdk-client-defaults';
import { systemClock } from '../../shared/ports';

const hasLogger = (c: { middlewareStack: { identify(): string[] } }) =>
  c.middlewareStack.identify().some((m) => m.startsWith('loggerMiddleware'));

describe('AWS SDK clients', () => {
  it('come with a logger middleware that builds a masked log entry on every call', () => {
    expect(hasLogger(new DynamoDBClient({ region: 'local' }))).toBe(true);
  });

  it('lose it in the Store: we give the SDK no logger, so the entry it builds is never read', () => {
    const client = new DynamoDBClient({ region: 'local' });
    new DynamoStore('integrations', client, systemClock);
    expect(hasLogger(client)).toBe(false);
    expect(hasLogger(withoutSdkLogging(new DynamoDBClient({ region: 'local' })))).toBe(false);
  });
});
