import { randomUUID } from 'node:crypto';
import type { Subscription } from '../domain/model';
import type { Store } from '../ports';
import { readListing, shardOf } from './sharded-listing';
import { keys, listings } from './table-design';

type SubscriptionItem = Subscription & { pk: string; sk: string; gsi1pk: string; gsi1sk: string; gsi2pk: string; gsi2sk: string };

/** The gsi1 partition that routes events to a subscription: its endpoint and trigger, its App installation and trigger, or its shard of the poller's. */
export function routeOf(sub: Subscription): string {
  if (sub.delivery === 'webhook' && sub.endpointId !== undefined) return keys.webhookRoute(sub.endpointId, sub.trigger);
  if (sub.delivery === 'webhook' && sub.installationId !== undefined) return keys.appRoute(sub.installationId, sub.trigger);
  return shardOf(listings.polled(sub.trigger), sub.connectionId);
}

function toItem(sub: Subscription): SubscriptionItem {
  return {
    ...sub,
    ...keys.subscription(sub.id),
    gsi1pk: routeOf(sub),
    gsi1sk: sub.id,
    gsi2pk: shardOf(listings.subscriptions, sub.connectionId),
    gsi2sk: `${sub.connectionId}#${sub.createdAt}#${sub.id}`,
  };
}

function fromItem(item: SubscriptionItem): Subscription {
  const { pk: _pk, sk: _sk, gsi1pk: _a, gsi1sk: _b, gsi2pk: _c, gsi2sk: _d, ...sub } = item;
  return sub;
}

/** Subscriptions in the table, findable by id, by route (the intake's Query) and by connection. */
export class SubscriptionRepo {
  constructor(private readonly store: Store) {}

  static newId(): string {
    return `sub_${randomUUID().replace(/-/g, '')}`;
  }

  async get(id: string): Promise<Subscription | undefined> {
    const item = await this.store.get<SubscriptionItem>(keys.subscription(id));
    return item ? fromItem(item) : undefined;
  }

  async create(sub: Subscription): Promise<void> {
    await this.store.put(toItem(sub), { ifNotExists: true });
  }

  /**
   * Rewrites a subscription that still exists (a rename the code host announced or a delivery
   * revealed: its name and id; never its route). Not versioned: only renames change a
   * subscription, and two of them write the same names; a subscription deleted meanwhile stays deleted.
   */
  async replace(sub: Subscription): Promise<boolean> {
    try {
      await this.store.put(toItem(sub), { ifExists: true });
      return true;
    } catch (e) {
      if ((e as Error).name === 'ConditionFailedError') return false;
      throw e;
    }
  }

  async delete(id: string): Promise<Subscription | undefined> {
    const item = await this.store.delete<SubscriptionItem>(keys.subscription(id));
    return item ? fromItem(item) : undefined;
  }

  /** The subscriptions a route partition holds (one Query per page). */
  async byRoute(route: string): Promise<Subscription[]> {
    return this.all({ pk: route, index: 'gsi1' });
  }

  /** The subscriptions the poller serves for `trigger`, from every shard. */
  async polled(trigger: string): Promise<Subscription[]> {
    return (await readListing<SubscriptionItem>(this.store, listings.polled(trigger))).map(fromItem);
  }

  /** All subscriptions (by connection, then oldest first), or one connection's, oldest first: that connection's shard alone. */
  async list(connectionId?: string): Promise<Subscription[]> {
    const read = connectionId === undefined ? {} : { tenant: connectionId, skPrefix: `${connectionId}#` };
    return (await readListing<SubscriptionItem>(this.store, listings.subscriptions, read)).map(fromItem);
  }

  private async all(q: { pk: string; index: 'gsi1' }): Promise<Subscription[]> {
    const out: Subscription[] = [];
    let cursor: string | undefined;
    do {
      const page = await this.store.query<SubscriptionItem>({ ...q, cursor });
      out.push(...page.items.map(fromItem));
      cursor = page.cursor;
    } while (cursor);
    return out;
  }
}
