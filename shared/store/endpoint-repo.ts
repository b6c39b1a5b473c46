import type { Endpoint, EndpointTarget } from '../domain/model';
import type { Store } from '../ports';
import { readListing, shardOf } from './sharded-listing';
import { keys, listings } from './table-design';
import { leaveRow, versionedUpdate, writeRow } from './versioned-update';
import { stableId } from '../domain/stable-id';

type EndpointItem = Endpoint & { pk: string; sk: string; gsi2pk: string; gsi2sk: string; version: number };

/** Canonical text of a target; code-host names are case-insensitive. */
export function targetKey(target: EndpointTarget): string {
  return target.kind === 'repository' ? `repo:${target.repository.toLowerCase()}` : `org:${target.organization.toLowerCase()}`;
}

/**
 * One endpoint per (connection, target), so its id is derived from them: a conditional
 * put on that id is all it takes to keep two concurrent subscriptions from making two hooks.
 */
export function endpointIdFor(connectionId: string, target: EndpointTarget): string {
  return stableId('ep_', [connectionId, targetKey(target)]);
}

function toItem(e: Endpoint, version: number): EndpointItem {
  return {
    ...e,
    ...keys.endpoint(e.id),
    gsi2pk: shardOf(listings.endpoints, e.connectionId),
    gsi2sk: `${e.connectionId}#${e.id}`,
    version,
  };
}

function fromItem(item: EndpointItem): Endpoint {
  const { pk: _pk, sk: _sk, gsi2pk: _g, gsi2sk: _s, version: _v, ...e } = item;
  return e;
}

/** Webhook endpoints (one code-host hook each) in the table. Secrets live in the SecretStore. */
export class EndpointRepo {
  constructor(private readonly store: Store) {}

  async get(id: string): Promise<Endpoint | undefined> {
    const item = await this.store.get<EndpointItem>(keys.endpoint(id));
    return item ? fromItem(item) : undefined;
  }

  /** Throws ConditionFailedError when it already exists. */
  async create(e: Endpoint): Promise<void> {
    await this.store.put(toItem(e, 1), { ifNotExists: true });
  }

  /**
   * Read-modify-write with optimistic concurrency: the intake marking an endpoint verified
   * (the code host pings as soon as the hook exists) must not undo the hook id written
   * by the subscription that created it, nor the other way round.
   */
  async update(id: string, change: (e: Endpoint) => Endpoint): Promise<Endpoint | undefined> {
    const key = keys.endpoint(id);
    return versionedUpdate(
      this.store,
      () => this.store.get<EndpointItem>(key),
      (item) => {
        if (!item) return leaveRow(undefined);
        const next = { ...change(fromItem(item)), id };
        return writeRow(toItem(next, item.version), next);
      },
      { key, attempts: 8 },
    );
  }

  async delete(id: string): Promise<void> {
    await this.store.delete(keys.endpoint(id));
  }

  /** Every endpoint, or one connection's (their sort keys start with the connection id; its shard alone is read). */
  async list(connectionId?: string): Promise<Endpoint[]> {
    const read = connectionId === undefined ? {} : { tenant: connectionId, skPrefix: `${connectionId}#` };
    return (await readListing<EndpointItem>(this.store, listings.endpoints, read)).map(fromItem);
  }
}
