/**
 * The ports: everything the domain and handlers need from the outside world.
 * Two sets of adapters implement them: `adapters/aws/` (the only folder that imports
 * the AWS SDK) and `adapters/local/` (the embedded defaults of `npm start`).
 */

/** Milliseconds since the epoch; injected so tests can move time. */
export interface Clock {
  now(): number;
}

export const systemClock: Clock = { now: () => Date.now() };

/** Waits `ms` milliseconds (rate-limit waits, backoff); injected so tests run the waits on a test clock. */
export type Sleep = (ms: number) => Promise<void>;

export const realSleep: Sleep = (ms) => new Promise((resolve) => setTimeout(resolve, Math.max(0, ms)));

/** Primary key of an item in the single table (see shared/store/table-design.ts). */
export interface Key {
  pk: string;
  sk: string;
}

/** A stored item. `ttl` (epoch seconds), where set, makes the item expire. */
export type Item = Key & Record<string, unknown>;

export interface PutOptions {
  /** Write only if no live item has this key (an expired item counts as absent). */
  ifNotExists?: boolean;
  /** Write only if an item with this key exists. */
  ifExists?: boolean;
  /** Optimistic concurrency: write only if the stored item's `version` equals this. */
  ifVersion?: number;
}

export interface QueryInput {
  /** Partition key value (of the table, or of the index when `index` is set). */
  pk: string;
  /** The index (shared/store/table-design.ts); `gsi3` answers only its keys and the fields it projects. */
  index?: 'gsi1' | 'gsi2' | 'gsi3';
  skPrefix?: string;
  /** Only sort keys strictly before this one (after it when `ascending`): a cursor that stays put while rows are added. Not with `skPrefix`. */
  skBefore?: string;
  limit?: number;
  /** Opaque cursor from a previous page. */
  cursor?: string;
  consistent?: boolean;
  /** Newest first when false. */
  ascending?: boolean;
}

export interface QueryPage<T> {
  items: T[];
  cursor?: string;
}

/**
 * Key-value store with conditional writes: DynamoDB on AWS, the same adapter against an
 * embedded DynamoDB (dynalite) locally. Expired items (ttl in the past) read as absent,
 * because DynamoDB deletes them lazily and dynalite never does.
 * A failed condition throws `ConditionFailedError` (shared/domain/errors.ts).
 * There are no multi-item transactions (the embedded DynamoDB has none): every record is
 * one item, and multi-step changes are ordered so that a crash between steps leaves
 * nothing that misroutes an event.
 */
export interface Store {
  get<T extends Key = Item>(key: Key, opts?: { consistent?: boolean }): Promise<T | undefined>;
  /**
   * Several items in as few calls as the store takes (DynamoDB's BatchGetItem: 100 keys a
   * call), answered in the order of `keys` (undefined where none is live); consistent reads
   * unless told otherwise, as `get`.
   */
  getAll<T extends Key = Item>(keys: readonly Key[], opts?: { consistent?: boolean }): Promise<Array<T | undefined>>;
  put(item: Item | (Key & object), opts?: PutOptions): Promise<void>;
  /**
   * Unconditional puts of several items in as few calls as the store takes (DynamoDB's
   * BatchWriteItem: 25 a call). Not atomic: on failure some items may be written. Two items
   * with one key: the later wins.
   */
  putAll(items: ReadonlyArray<Item | (Key & object)>): Promise<void>;
  /** Returns the deleted item, if there was a live one. */
  delete<T extends Key = Item>(key: Key, opts?: { ifExists?: boolean }): Promise<T | undefined>;
  query<T extends Key = Item>(input: QueryInput): Promise<QueryPage<T>>;
}

export interface OutgoingMessage {
  /** Unique within one batch. */
  id: string;
  body: string;
  delaySeconds?: number;
  /**
   * The tenant the message belongs to: SQS fair queues' `MessageGroupId` on a standard queue,
   * so that one tenant's backlog does not hold back the others' messages (the local queue
   * takes its groups in turn).
   */
  group?: string;
  /**
   * Tries of its event already made, for a retry's delayed copy: the count goes with the copy
   * (an SQS message attribute, a field of the local journal), so that waiting out of flight
   * does not start the tries over.
   */
  attempts?: number;
}

/** Producer side of a queue (SQS on AWS). Consumers are driven by the runtime. */
export interface Queue {
  /** Sends all or throws; the adapter splits into batches the service accepts. */
  sendBatch(messages: OutgoingMessage[]): Promise<void>;
}

/** A message as a consumer receives it (SQS record, or the local queue's receive). */
export interface InboundMessage {
  messageId: string;
  body: string;
  receiptHandle: string;
  /** 1 on the first receive. */
  receiveCount: number;
  /** When the message was first sent (epoch ms). */
  sentAt?: number;
  /** Tries made before this message was sent (`OutgoingMessage.attempts`); its own receives come on top. */
  attempts?: number;
  /** The tenant it was sent with (`OutgoingMessage.group`), where the queue tells. */
  group?: string;
}

/** Consumer-side control of a message in flight: postpone its next try (backoff). */
export interface ConsumerQueue {
  changeVisibility(receiptHandle: string, seconds: number): Promise<void>;
}

/**
 * A queue the runtime polls itself (the local runtime; on AWS the event source mapping
 * polls SQS). Receiving hides a message for the visibility timeout; a message received
 * more than the queue's max receives goes to its dead-letter queue instead.
 */
export interface PollableQueue extends Queue, ConsumerQueue {
  receive(max: number, visibilityTimeoutSeconds: number): Promise<InboundMessage[]>;
  delete(receiptHandle: string): Promise<void>;
}

export interface DeadLetter {
  messageId: string;
  body: string;
  receiveCount: number;
  /** When the message first entered the main queue (epoch ms), where known. */
  sentAt?: number;
}

/** Operator's view of the dead-letter queue: inspect and send back. */
export interface DeadLetterQueue {
  list(max: number): Promise<DeadLetter[]>;
  /** Moves messages back to the main queue; all of them when no ids are given. Returns how many moved. */
  redrive(messageIds?: string[]): Promise<number>;
}

/** Secrets by name (Secrets Manager on AWS; an AES-256-GCM encrypted file locally). */
export interface SecretStore {
  /**
   * `fresh`: bypass any read cache (a token refresh must see what another worker just
   * wrote, or it would spend a rotated refresh token). Adapters without a cache ignore it.
   */
  get(name: string, opts?: { fresh?: boolean }): Promise<string | undefined>;
  put(name: string, value: string): Promise<void>;
  delete(name: string): Promise<void>;
}

/** Large bodies stored aside (claim check): S3 on AWS, the data dir locally. */
export interface BlobStore {
  put(key: string, body: Buffer): Promise<void>;
  get(key: string): Promise<Buffer | undefined>;
  delete(key: string): Promise<void>;
}

export type Fetch = typeof fetch;
