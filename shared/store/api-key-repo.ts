import type { Store } from '../ports';
import { readListing, shardOf } from './sharded-listing';
import { keys, listings, ttlIn } from './table-design';
import { leaveRow, versionedUpdate, writeRow } from './versioned-update';

/** A scoped key as stored and listed: never the key itself, only the hash of its secret. */
export interface ApiKeyRecord {
  id: string;
  label: string;
  /** The connections the key opens. */
  connections: string[];
  /** An end user's key: it opens every connection of theirs as well, present and future. */
  endUserId?: string;
  /** The agents the key acts for (their subscriptions and events only); absent: every agent. */
  agents?: string[];
  createdAt: string;
  /** ISO time after which the key answers 401; absent: until revoked. */
  expiresAt?: string;
}

type ApiKeyItem = ApiKeyRecord & {
  pk: string;
  sk: string;
  gsi2pk: string;
  gsi2sk: string;
  secretHash: string;
  ttl?: number;
  /** Bumped by each rewrite (a disconnect taking a connection off the key). */
  version?: number;
};

/** A day past expiry the row goes (DynamoDB's TTL); until then it reads as expired, not absent. */
const keptAfterExpirySeconds = 24 * 3600;

function fromItem(item: ApiKeyItem): ApiKeyRecord {
  const { pk: _pk, sk: _sk, gsi2pk: _g, gsi2sk: _s, secretHash: _h, ttl: _t, version: _v, ...record } = item;
  return record;
}

/** Scoped keys in the table (`KEY#<id>`, listed on gsi2 `KEYS#<shard>`, by the key's id). */
export class ApiKeyRepo {
  constructor(private readonly store: Store) {}

  async create(record: ApiKeyRecord, secretHash: string): Promise<void> {
    const item: ApiKeyItem = {
      ...record,
      ...keys.apiKey(record.id),
      gsi2pk: shardOf(listings.apiKeys, record.id),
      gsi2sk: `${record.createdAt}#${record.id}`,
      secretHash,
      version: 0,
      ...(record.expiresAt ? { ttl: ttlIn(Date.parse(record.expiresAt), keptAfterExpirySeconds) } : {}),
    };
    await this.store.put(item, { ifNotExists: true });
  }

  /** The record and its secret's hash, read strongly so that a revoke is seen at once. */
  async getWithHash(id: string): Promise<(ApiKeyRecord & { secretHash: string }) | undefined> {
    const item = await this.store.get<ApiKeyItem>(keys.apiKey(id), { consistent: true });
    return item ? { ...fromItem(item), secretHash: item.secretHash } : undefined;
  }

  async list(): Promise<ApiKeyRecord[]> {
    return (await this.listItems()).map(fromItem);
  }

  private listItems(): Promise<ApiKeyItem[]> {
    return readListing<ApiKeyItem>(this.store, listings.apiKeys);
  }

  /**
   * Takes a connection off every key that lists it (a disconnect): each key rewritten only if
   * it is unchanged since read, read again when it changed. Answers how many keys lost it.
   */
  async removeConnection(connectionId: string): Promise<number> {
    let changed = 0;
    for (const listed of (await this.listItems()).filter((k) => k.connections.includes(connectionId))) {
      const key = keys.apiKey(listed.id);
      // What the write was made on: a row from before keys had a version (`legacy`) is written
      // on existence alone, and a concurrent rewrite could have put the connection back, so it
      // is read once more after such a write.
      let written: 'versioned' | 'legacy' | undefined;
      let rewritten = false;
      for (let pass = 0; pass < 3; pass++) {
        written = await versionedUpdate(
          this.store,
          () => this.store.get<ApiKeyItem>(key, { consistent: true }),
          (item) =>
            item?.connections.includes(connectionId)
              ? writeRow(
                  { ...item, connections: item.connections.filter((c) => c !== connectionId) },
                  item.version === undefined ? 'legacy' : 'versioned',
                )
              : leaveRow(undefined),
          { key, attempts: 6 },
        );
        if (written !== undefined) rewritten = true;
        if (written !== 'legacy') break;
      }
      if (written === 'legacy') throw new Error(`could not take connection ${connectionId} off key ${listed.id}: it kept changing`);
      if (rewritten) changed++;
    }
    return changed;
  }

  async delete(id: string): Promise<ApiKeyRecord | undefined> {
    const item = await this.store.delete<ApiKeyItem>(keys.apiKey(id));
    return item ? fromItem(item) : undefined;
  }
}
