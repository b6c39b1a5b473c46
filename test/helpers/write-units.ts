import { marshall } from '@aws-sdk/util-dynamodb';
import type { Item, Key, Store } from '../../shared/ports';
import { itemBytes } from '../aws/harness/capacity-units';

/**
 * DynamoDB's on-demand write units of a run of puts, by the rules AWS documents for a table and its
 * global secondary indexes (the embedded DynamoDB counts none of them): a unit per KB of the item
 * written; per index, a unit to put an item that arrives in it, a unit to take out one that
 * leaves it, both when its index key changes, one when it stays but an attribute the index
 * projects changes, and none when the write changes nothing the index holds.
 * https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/GSI.html#GSI.ThroughputConsiderations.Writes
 */

export interface IndexModel {
  name: string;
  partitionKey: string;
  sortKey: string;
  /** `all`, or the non-key attributes it projects. */
  projection: 'all' | readonly string[];
}

export interface WriteUnits {
  item: number;
  index: Record<string, number>;
}

const marshallOptions = { removeUndefinedValues: true, convertClassInstanceToMap: false };
const kb = (bytes: number) => Math.max(1, Math.ceil(bytes / 1024));
const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);

function indexCost(ix: IndexModel, before: Item | undefined, after: Item): number {
  const keyOf = (i: Item | undefined) => (i && typeof i[ix.partitionKey] === 'string' ? [i[ix.partitionKey], i[ix.sortKey]] : undefined);
  const was = keyOf(before);
  const is = keyOf(after);
  if (!was && !is) return 0;
  if (!was || !is) return 1;
  if (!same(was, is)) return 2;
  const names = ix.projection === 'all' ? new Set([...Object.keys(before ?? {}), ...Object.keys(after)]) : new Set(ix.projection);
  return [...names].some((n) => !same(before?.[n], after[n])) ? 1 : 0;
}

/** What one put costs, given what the key held before it. */
export function putUnits(indexes: readonly IndexModel[], before: Item | undefined, after: Item): WriteUnits {
  // A rewrite costs the larger of the old and the new item.
  const sizes = [after, before].filter((i): i is Item => i !== undefined).map((i) => itemBytes(marshall(i, marshallOptions)));
  return { item: kb(Math.max(...sizes)), index: Object.fromEntries(indexes.map((ix) => [ix.name, indexCost(ix, before, after)])) };
}

/**
 * Records every put (and putAll) made through `store` from now on, each with what its key held
 * before: `written()` answers them in order.
 */
export function recordPuts(store: Store): { written: () => { before: Item | undefined; after: Item }[] } {
  const held = new Map<string, Item>();
  const log: { before: Item | undefined; after: Item }[] = [];
  const id = (k: Key) => `${k.pk}\u0000${k.sk}`;
  const note = (item: Item) => {
    log.push({ before: held.get(id(item)), after: item });
    held.set(id(item), item);
  };
  const put = store.put.bind(store);
  const putAll = store.putAll.bind(store);
  Object.assign(store, {
    put: async (item: Item, opts?: Parameters<Store['put']>[1]) => {
      await put(item, opts);
      note(item);
    },
    putAll: async (items: ReadonlyArray<Item>) => {
      await putAll(items);
      for (const item of items) note(item);
    },
  });
  return { written: () => [...log] };
}
