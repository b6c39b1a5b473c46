import {
  ConditionalCheckFailedException,
  DynamoDBClient,
  type DynamoDBClientConfig,
} from '@aws-sdk/client-dynamodb';
import {
  DeleteCommand,
  DynamoDBDocumentClient,
  GetCommand,
  PutCommand,
  QueryCommand,
  type QueryCommandInput,
} from '@aws-sdk/lib-dynamodb';
import { ConditionFailedError } from '../../domain/errors';
import type { Clock, Item, Key, PutOptions, QueryInput, QueryPage, Store} from '../../ports';
import { tableDesign } from '../../store/table-design';

interface Condition {
  ConditionExpression?: string;
  ExpressionAttributeNames?: Record<string, string>;
  ExpressionAttributeValues?: Record<string, unknown>;
}

/** Counts calls per kind, so benchmarks and tests can hold the per-delivery budget. */
export interface CallCounter {
  count(kind: 'get' | 'put' | 'delete' | 'query'): void;
}

/**
 * The Store port over DynamoDB. The same code serves AWS and the embedded dynalite.
 * Items whose `ttl` is past read as absent (DynamoDB removes them late, dynalite never).
 */
export class DynamoStore implements Store {
  private readonly doc: DynamoDBDocumentClient;

  constructor(
    private readonly tableName: string,
    client: DynamoDBClient,
    private readonly clock: Clock,
    private readonly counter?: CallCounter,
  ) {
    this.doc = DynamoDBDocumentClient.from(client, {
      marshallOptions: { removeUndefinedValues: true, convertClassInstanceToMap: false },
    });
  }

  static create(tableName: string, clock: Clock, config: DynamoDBClientConfig = {}, counter?: CallCounter): DynamoStore {
    return new DynamoStore(tableName, new DynamoDBClient(config), clock, counter);
  }

  private nowSeconds(): number {
    return Math.floor(this.clock.now() / 1000);
  }

  private live<T extends Key>(item: Record<string, unknown> | undefined): T | undefined {
    if (!item) return undefined;
    const ttl = item[tableDesign.ttlAttribute];
    if (typeof ttl === 'number' && ttl <= this.nowSeconds()) return undefined;
    return item as T;
  }

  private condition(opts?: PutOptions): Condition {
    if (!opts) return {};
    if (opts.ifNotExists) {
      return {
        ConditionExpression: 'attribute_not_exists(#pk) OR #ttl <= :now',
        ExpressionAttributeNames: { '#pk': tableDesign.partitionKey, '#ttl': tableDesign.ttlAttribute },
        ExpressionAttributeValues: { ':now': this.nowSeconds() },
      };
    }
    if (opts.ifVersion !== undefined) {
      return {
        ConditionExpression: '#v = :v',
        ExpressionAttributeNames: { '#v': 'version' },
        ExpressionAttributeValues: { ':v': opts.ifVersion },
      };
    }
    if (opts.ifExists) {
      return {
        ConditionExpression: 'attribute_exists(#pk)',
        ExpressionAttributeNames: { '#pk': tableDesign.partitionKey },
      };
    }
    return {};
  }

  async get<T extends Key = Item>(key: Key, opts?: { consistent?: boolean }): Promise<T | undefined> {
    this.counter?.count('get');
    const out = await this.doc.send(
      new GetCommand({ TableName: this.tableName, Key: { pk: key.pk, sk: key.sk }, ConsistentRead: opts?.consistent ?? true }),
    );
    return this.live<T>(out.Item);
  }

  async put(item: Item | (Key & object), opts?: PutOptions): Promise<void> {
    this.counter?.count('put');
    try {
      await this.doc.send(new PutCommand({ TableName: this.tableName, Item: item, ...this.condition(opts) }));
    } catch (e) {
      if (e instanceof ConditionalCheckFailedException) throw new ConditionFailedError(`put ${item.pk}: condition failed`);
      throw e;
    }
  }

  async delete<T extends Key = Item>(key: Key, opts?: { ifExists?: boolean }): Promise<T | undefined> {
    this.counter?.count('delete');
    try {
      const out = await this.doc.send(
        new DeleteCommand({
          TableName: this.tableName,
          Key: { pk: key.pk, sk: key.sk },
          ReturnValues: 'ALL_OLD',
          ...this.condition(opts?.ifExists ? { ifExists: true } : undefined),
        }),
      );
      return this.live<T>(out.Attributes);
    } catch (e) {
      if (e instanceof ConditionalCheckFailedException) throw new ConditionFailedError(`delete ${key.pk}: no such item`);
      throw e;
    }
  }

  async query<T extends Key = Item>(input: QueryInput): Promise<QueryPage<T>> {
    this.counter?.count('query');
    const index = input.index ? tableDesign[input.index] : undefined;
    const onIndex = index !== undefined;
    const pkName = index ? index.partitionKey : tableDesign.partitionKey;
    const skName = index ? index.sortKey : tableDesign.sortKey;
    const params: QueryCommandInput = {
      TableName: this.tableName,
      KeyConditionExpression: input.skPrefix !== undefined ? '#pk = :pk AND begins_with(#sk, :sk)' : '#pk = :pk',
      ExpressionAttributeNames: input.skPrefix !== undefined ? { '#pk': pkName, '#sk': skName } : { '#pk': pkName },
      ExpressionAttributeValues: input.skPrefix !== undefined ? { ':pk': input.pk, ':sk': input.skPrefix } : { ':pk': input.pk },
      ScanIndexForward: input.ascending ?? true,
      Limit: input.limit,
      ConsistentRead: onIndex ? false : (input.consistent ?? true),
    };
    if (index) params.IndexName = index.name;
    if (input.cursor) params.ExclusiveStartKey = JSON.parse(Buffer.from(input.cursor, 'base64url').toString('utf8'));
    const out = await this.doc.send(new QueryCommand(params));
    const items = (out.Items ?? []).map((i) => this.live<T>(i)).filter((i): i is T => i !== undefined);
    const cursor = out.LastEvaluatedKey ? Buffer.from(JSON.stringify(out.LastEvaluatedKey)).toString('base64url') : undefined;
    return cursor ? { items, cursor } : { items };
  }
}
