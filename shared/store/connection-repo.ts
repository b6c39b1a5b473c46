import { randomUUID } from 'node:crypto';
import type { Connection } from '../domain/model';
import type { Store } from '../ports';
import { readListing, shardOf } from './sharded-listing';
import { keys, listings } from './table-design';
import { leaveRow, versionedUpdate, writeRow } from './versioned-update';
import { actsThroughInstallation } from '../domain/allow-list';

type ConnectionItem = Connection & {
  pk: string;
  sk: string;
  gsi1pk?: string;
  gsi1sk?: string;
  gsi2pk: string;
  gsi2sk: string;
  version: number;
};

/** A connection that acts through an installation is also listed under it (gsi1), so an app delivery finds every connection of it in one Query. */
function installationIndex(c: Connection): { gsi1pk: string; gsi1sk: string } | undefined {
  if (!actsThroughInstallation[c.authMethod] || c.installation === undefined) return undefined;
  return { gsi1pk: keys.installationConnections(c.installation.id), gsi1sk: c.id };
}

function toItem(c: Connection, version: number): ConnectionItem {
  return {
    ...c,
    ...keys.connection(c.id),
    ...installationIndex(c),
    gsi2pk: shardOf(listings.connections, c.id),
    gsi2sk: `${c.createdAt}#${c.id}`,
    version,
  };
}

function fromItem(item: ConnectionItem): Connection {
  const { pk: _pk, sk: _sk, gsi1pk: _a, gsi1sk: _b, gsi2pk: _g, gsi2sk: _s, version: _v, ...c } = item;
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

  /** Every connection, oldest first. */
  async list(): Promise<Connection[]> {
    return (await readListing<ConnectionItem>(this.store, listings.connections)).map(fromItem);
  }

  /** The `github_app` connections of one installation (many users may connect through one installation). */
  async byInstallation(installationId: number): Promise<Connection[]> {
    const out: Connection[] = [];
    let cursor: string | undefined;
    do {
      const page = await this.store.query<ConnectionItem>({ pk: keys.installationConnections(installationId), index: 'gsi1', cursor });
      out.push(...page.items.map(fromItem));
      cursor = page.cursor;
    } while (cursor);
    return out;
  }

  /** The ids of one end user's connections (those made through a connect page for them). */
  async idsOfEndUser(endUserId: string): Promise<string[]> {
    const out: string[] = [];
    let cursor: string | undefined;
    do {
      const page = await this.store.query<{ pk: string; sk: string; connectionId: string }>({
        pk: keys.endUserConnections(endUserId),
        consistent: true,
        cursor,
      });
      out.push(...page.items.map((i) => i.connectionId));
      cursor = page.cursor;
    } while (cursor);
    return out;
  }

  async create(c: Connection): Promise<void> {
    // The end user's row first: one left behind by a failed create names a connection that never existed, and opens nothing.
    if (c.endUserId !== undefined) await this.store.put({ ...keys.endUserConnection(c.endUserId, c.id), connectionId: c.id });
    await this.store.put(toItem(c, 1), { ifNotExists: true });
  }

  /**
   * Read-modify-write with optimistic concurrency: retries when another writer got there
   * first, so concurrent updates (a PATCH and a token refresh) never lose each other's fields.
   */
  async update(id: string, change: (c: Connection) => Connection): Promise<Connection | undefined> {
    const key = keys.connection(id);
    return versionedUpdate(
      this.store,
      () => this.store.get<ConnectionItem>(key),
      (item) => {
        if (!item) return leaveRow(undefined);
        const next = change(fromItem(item));
        return writeRow(toItem({ ...next, id }, item.version), next);
      },
      { key, attempts: 5 },
    );
  }

  async delete(id: string): Promise<Connection | undefined> {
    const item = await this.store.delete<ConnectionItem>(keys.connection(id));
    if (item?.endUserId !== undefined) await this.store.delete(keys.endUserConnection(item.endUserId, id));
    return item ? fromItem(item) : undefined;
  }
}
