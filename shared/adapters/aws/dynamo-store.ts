import {
  BatchGetItemCommand,
  BatchWriteItemCommand,
  ConditionalCheckFailedException,
  DeleteItemCommand,
  DynamoDBClient,
  GetItemCommand,
  PutItemCommand,
  QueryCommand,
  type AttributeValue,
  type DynamoDBClientConfig,
  type QueryCommandInput,
  type WriteRequest,
} from '@aws-sdk/client-dynamodb';
import { marshall, unmarshall } from '@aws-sdk/util-dynamodb';
import { ConditionFailedError } from '../../domain/errors';
import type { Clock, Item, Key, PutOptions, QueryInput, QueryPage, Store } from '../../ports';
import { tableDesign } from '../../store/table-design';
import { sdkClientDefaults, withoutSdkLogging } from './sdk-client-defaults';

interface Condition {
  ConditionExpression?: string;
  ExpressionAttributeNames?: Record<string, string>;
  ExpressionAttributeValues?: Record<string, AttributeValue>;
}

const marshallOptions = { removeUndefinedValues: true, convertClassInstanceToMap: false };
const toAttributes = (o: Record<string, unknown>) => marshall(o, marshallOptions);

/** Counts calls per kind, so benchmarks and tests can hold the per-delivery budget. */
export interface CallCounter {
  count(kind: 'get' | 'getAll' | 'put' | 'putAll' | 'delete' | 'query'): void;
}

/** BatchWriteItem's limit of items per call. */
const batchWriteLimit = 25;
/** BatchGetItem's limit of keys per call. */
const batchGetLimit = 100;
/** Rounds of resending what DynamoDB left unprocessed (it does under throttling), with a doubling pause. */
const unprocessedRetries = 5;
const unprocessedPauseMs = 25;

/** A key's identity within one batch call, which refuses a key named twice. */
const keyId = (k: Key) => JSON.stringify([k.pk, k.sk]);

/** `list` in runs of at most `size` (a batch call's limit). */
function inRuns<T>(list: readonly T[], size: number): T[][] {
  return Array.from({ length: Math.ceil(list.length / size) }, (_, i) => list.slice(i * size, (i + 1) * size));
}

/**
 * Makes a batch call until the table has taken every request: `call` answers what the table
 * left unprocessed (it does under throttling), sent again after a doubling pause, at most
 * `unprocessedRetries` times; then it fails, naming how many are left.
 */
async function untilProcessed<R>(what: string, unit: string, requests: R[], call: (left: R[]) => Promise<R[]>): Promise<void> {
  let left = requests;
  for (let round = 0; left.length > 0; round++) {
    if (round > unprocessedRetries) throw new Error(`${what}: ${left.length} of ${requests.length} ${unit} left unprocessed by the table`);
    if (round > 0) await new Promise((r) => setTimeout(r, unprocessedPauseMs << (round - 1)));
    left = await call(left);
  }
}

/**
 * The Store port over DynamoDB. The same code serves AWS and the embedded dynalite.
 * Items whose `ttl` is past read as absent (DynamoDB removes them late, dynalite never).
 * The low-level client with util-dynamodb's marshalling rather than the DocumentClient:
 * the DocumentClient cannot cache its middleware chain (sdk-client-defaults.ts), which
 * is most of the SDK's per-call CPU on the intake's hot path.
 */
export class DynamoStore implements Store {
  constructor(
    private readonly tableName: string,
    private readonly client: DynamoDBClient,
    private readonly clock: Clock,
    private readonly counter?: CallCounter,
  ) {
    // Our clients carry no SDK logger: see withoutSdkLogging.
    withoutSdkLogging(client);
  }

  static create(tableName: string, clock: Clock, config: DynamoDBClientConfig = {}, counter?: CallCounter): DynamoStore {
    return new DynamoStore(tableName, new DynamoDBClient({ ...sdkClientDefaults, ...config }), clock, counter);
  }

  private nowSeconds(): number {
    return Math.floor(this.clock.now() / 1000);
  }

  private live<T extends Key>(attributes: Record<string, AttributeValue> | undefined): T | undefined {
    if (!attributes) return undefined;
    const item = unmarshall(attributes);
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
        ExpressionAttributeValues: toAttributes({ ':now': this.nowSeconds() }),
      };
    }
    if (opts.ifVersion !== undefined) {
      return {
        ConditionExpression: '#v = :v',
        ExpressionAttributeNames: { '#v': 'version' },
        ExpressionAttributeValues: toAttributes({ ':v': opts.ifVersion }),
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
    const out = await this.client.send(
      new GetItemCommand({
        TableName: this.tableName,
        Key: toAttributes({ pk: key.pk, sk: key.sk }),
        ConsistentRead: opts?.consistent ?? true,
      }),
    );
    return this.live<T>(out.Item);
  }

  async getAll<T extends Key = Item>(keys: readonly Key[], opts?: { consistent?: boolean }): Promise<Array<T | undefined>> {
    // One request per key (BatchGetItem refuses a call that names a key twice).
    const distinct = [...new Map(keys.map((k) => [keyId(k), toAttributes({ pk: k.pk, sk: k.sk })])).values()];
    const found = new Map<string, T>();
    const ConsistentRead = opts?.consistent ?? true;
    await Promise.all(
      inRuns(distinct, batchGetLimit).map((run) =>
        untilProcessed('getAll', 'keys', run, async (Keys) => {
          this.counter?.count('getAll');
          const out = await this.client.send(new BatchGetItemCommand({ RequestItems: { [this.tableName]: { Keys, ConsistentRead } } }));
          for (const raw of out.Responses?.[this.tableName] ?? []) {
            const item = this.live<T>(raw);
            if (item) found.set(keyId(item), item);
          }
          return out.UnprocessedKeys?.[this.tableName]?.Keys ?? [];
        }),
      ),
    );
    return keys.map((k) => found.get(keyId(k)));
  }

  async put(item: Item | (Key & object), opts?: PutOptions): Promise<void> {
    this.counter?.count('put');
    try {
      await this.client.send(
        new PutItemCommand({ TableName: this.tableName, Item: toAttributes(item as Record<string, unknown>), ...this.condition(opts) }),
      );
    } catch (e) {
      if (e instanceof ConditionalCheckFailedException) throw new ConditionFailedError(`put ${item.pk}: condition failed`);
      throw e;
    }
  }

  async putAll(items: ReadonlyArray<Item | (Key & object)>): Promise<void> {
    // One request per key (BatchWriteItem refuses a batch that names a key twice): the later wins.
    const byKey = new Map<string, Item | (Key & object)>();
    for (const item of items) byKey.set(keyId(item), item);
    const requests: WriteRequest[] = [...byKey.values()].map((item) => ({
      PutRequest: { Item: toAttributes(item as Record<string, unknown>) },
    }));
    await Promise.all(
      inRuns(requests, batchWriteLimit).map((run) =>
        untilProcessed('putAll', 'items', run, async (left) => {
          this.counter?.count('putAll');
          const out = await this.client.send(new BatchWriteItemCommand({ RequestItems: { [this.tableName]: left } }));
          return out.UnprocessedItems?.[this.tableName] ?? [];
        }),
      ),
    );
  }

  async delete<T extends Key = Item>(key: Key, opts?: { ifExists?: boolean }): Promise<T | undefined> {
    this.counter?.count('delete');
    try {
      const out = await this.client.send(
        new DeleteItemCommand({
          TableName: this.tableName,
          Key: toAttributes({ pk: key.pk, sk: key.sk }),
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
    if (input.skPrefix !== undefined && input.skBefore !== undefined) throw new Error('query: skPrefix and skBefore do not combine');
    const ascending = input.ascending ?? true;
    const skCondition =
      input.skPrefix !== undefined
        ? 'begins_with(#sk, :sk)'
        : input.skBefore !== undefined
          ? ascending
            ? '#sk > :sk'
            : '#sk < :sk'
          : undefined;
    const skValue = input.skPrefix ?? input.skBefore;
    const params: QueryCommandInput = {
      TableName: this.tableName,
      KeyConditionExpression: skCondition ? `#pk = :pk AND ${skCondition}` : '#pk = :pk',
      ExpressionAttributeNames: skCondition ? { '#pk': pkName, '#sk': skName } : { '#pk': pkName },
      ExpressionAttributeValues: toAttributes(skValue !== undefined ? { ':pk': input.pk, ':sk': skValue } : { ':pk': input.pk }),
      ScanIndexForward: ascending,
      Limit: input.limit,
      ConsistentRead: onIndex ? false : (input.consistent ?? true),
    };
    if (index) params.IndexName = index.name;
    if (input.cursor)
      params.ExclusiveStartKey = toAttributes(
        JSON.parse(Buffer.from(input.cursor, 'base64url').toString('utf8')) as Record<string, unknown>,
      );
    const out = await this.client.send(new QueryCommand(params));
    const items = (out.Items ?? []).map((i) => this.live<T>(i)).filter((i): i is T => i !== undefined);
    const cursor = out.LastEvaluatedKey ? Buffer.from(JSON.stringify(unmarshall(out.LastEvaluatedKey))).toString('base64url') : undefined;
    return cursor ? { items, cursor } : { items };
  }
}
