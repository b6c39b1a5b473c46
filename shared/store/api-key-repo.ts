import { ConditionFailedError } from '../domain/errors';
import type { Store } from '../ports';
import { keys, ttlIn } from './table-design';

/** A scoped key as stored and listed: never the key itself, only the hash of its secret. */
export interface ApiKeyRecord {
  id: string;
  label: string;
  /** The connections the key opens. */
  connections: string[];
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

/** Scoped keys in the table (`KEY#<id>`, listed on gsi2 `KEYS`). */
export class ApiKeyRepo {
  constructor(private readonly store: Store) {}

  async create(record: ApiKeyRecord, secretHash: string): Promise<void> {
    const item: ApiKeyItem = {
      ...record,
      ...keys.apiKey(record.id),
      gsi2pk: keys.apiKeysList,
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

  private async listItems(): Promise<ApiKeyItem[]> {
    const out: ApiKeyItem[] = [];
    let cursor: string | undefined;
    do {
      const page = await this.store.query<ApiKeyItem>({ pk: keys.apiKeysList, index: 'gsi2', cursor });
      out.push(...page.items);
      cursor = page.cursor;
    } while (cursor);
    return out;
  }

  /**
   * Takes a connection off every key that lists it (a disconnect): each key rewritten only if
   * it is unchanged since read, read again when it changed. Answers how many keys lost it.
   */
  async removeConnection(connectionId: string): Promise<number> {
    let changed = 0;
    for (const listed of (await this.listItems()).filter((k) => k.connections.includes(connectionId))) {
      let rewritten = false;
      let off = false;
      // Read back after each write: a row from before keys had a version is written on
      // `ifExists` alone, and a concurrent rewrite could have put the connection back.
      for (let attempt = 0; attempt < 6; attempt++) {
        const item = await this.store.get<ApiKeyItem>(keys.apiKey(listed.id), { consistent: true });
        if (!item?.connections.includes(connectionId)) {
          off = true;
          break;
        }
        const version = item.version ?? 0;
        const next: ApiKeyItem = { ...item, connections: item.connections.filter((c) => c !== connectionId), version: version + 1 };
        try {
          await this.store.put(next, item.version === undefined ? { ifExists: true } : { ifVersion: version });
          rewritten = true;
        } catch (e) {
          if (!(e instanceof ConditionFailedError)) throw e;
        }
      }
      if (!off) throw new Error(`could not take connection ${connectionId} off key ${listed.id}: it kept changing`);
      if (rewritten) changed++;
    }
    return changed;
  }

  async delete(id: string): Promise<ApiKeyRecord | undefined> {
    const item = await this.store.delete<ApiKeyItem>(keys.apiKey(id));
    return item ? fromItem(item) : undefined;
  }
}
