import type { Store } from '../ports';
import { keys, ttlIn } from './table-design';

/** A scoped key as stored and listed: never the key itself, only the hash of its secret. */
export interface ApiKeyRecord {
  id: string;
  label: string;
  /** The connections the key opens. */
  connections: string[];
  createdAt: string;
  /** ISO time after which the key answers 401; absent: until revoked. */
  expiresAt?: string;
}

type ApiKeyItem = ApiKeyRecord & { pk: string; sk: string; gsi2pk: string; gsi2sk: string; secretHash: string; ttl?: number };

/** A day past expiry the row goes (DynamoDB's TTL); until then it reads as expired, not absent. */
const keptAfterExpirySeconds = 24 * 3600;

function fromItem(item: ApiKeyItem): ApiKeyRecord {
  const { pk: _pk, sk: _sk, gsi2pk: _g, gsi2sk: _s, secretHash: _h, ttl: _t, ...record } = item;
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
    const out: ApiKeyRecord[] = [];
    let cursor: string | undefined;
    do {
      const page = await this.store.query<ApiKeyItem>({ pk: keys.apiKeysList, index: 'gsi2', cursor });
      out.push(...page.items.map(fromItem));
      cursor = page.cursor;
    } while (cursor);
    return out;
  }

  async delete(id: string): Promise<ApiKeyRecord | undefined> {
    const item = await this.store.delete<ApiKeyItem>(keys.apiKey(id));
    return item ? fromItem(item) : undefined;
  }
}
