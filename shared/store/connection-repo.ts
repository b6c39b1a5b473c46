import { randomUUID } from 'node:crypto';
import type { Connection } from '../domain/model';
import type { Store } from '../ports';
import { keys } from './table-design';

type ConnectionItem = Connection & { pk: string; sk: string; gsi2pk: string; gsi2sk: string; version: number };

function toItem(c: Connection, version: number): ConnectionItem {
  return { ...c, ...keys.connection(c.id), gsi2pk: keys.connectionsList, gsi2sk: `${c.createdAt}#${c.id}`, version };
}

function fromItem(item: ConnectionItem): Connection {
  const { pk: _pk, sk: _sk, gsi2pk: _g, gsi2sk: _s, version: _v, ...c } = item;
  return c;
}

/** Connected accounts in the table. Tokens are never here: see `secretNames.connectionToken`. */
export class ConnectionRepo {
  constructor(private readonly store: Store) {}

  static newId(): string {
    return `conn_${randomUUID().replace(/-/g, '')}`;
  }

  async get(id: string): Promise<Connection | undefined> {
    const item = await this.store.get<ConnectionItem>(keys.connection(id));
    return item ? fromItem(item) : undefined;
  }

  async list(): Promise<Connection[]> {
    const out: Connection[] = [];
    let cursor: string | undefined;
    do {
      const page = await this.store.query<ConnectionItem>({ pk: keys.connectionsList, index: 'gsi2', cursor });
      out.push(...page.items.map(fromItem));
      cursor = page.cursor;
    } while (cursor);
    return out;
  }

  async create(c: Connection): Promise<void> {
    await this.store.put(toItem(c, 1), { ifNotExists: true });
  }

  /**
   * Read-modify-write with optimistic concurrency: retries when another writer got there
   * first, so concurrent updates (a PATCH and a token refresh) never lose each other's fields.
   */
  async update(id: string, change: (c: Connection) => Connection): Promise<Connection | undefined> {
    for (let attempt = 0; attempt < 5; attempt++) {
      const item = await this.store.get<ConnectionItem>(keys.connection(id));
      if (!item) return undefined;
      const next = change(fromItem(item));
      try {
        await this.store.put(toItem({ ...next, id }, item.version + 1), { ifVersion: item.version });
        return next;
      } catch (e) {
        if ((e as Error).name !== 'ConditionFailedError') throw e;
      }
    }
    throw new Error(`connection ${id}: too many concurrent updates`);
  }

  async delete(id: string): Promise<Connection | undefined> {
    const item = await this.store.delete<ConnectionItem>(keys.connection(id));
    return item ? fromItem(item) : undefined;
  }
}
