import type { Item, Key, Store } from '../ports';
import { turnBatch } from './turn-batch';

const gets = turnBatch<Key, Item | undefined>((store, keys) => store.getAll(keys));

/**
 * A consistent read of one item, made with the others asked for in the same turn of the event
 * loop: one `getAll` (BatchGetItem, 100 keys a call) for all of them. The event history's
 * summaries of a batch's events, read before their POSTs, cost one call instead of one each
 * (the same read units); alone, a read waits one turn.
 */
export async function getCoalesced<T extends Key = Item>(store: Store, key: Key): Promise<T | undefined> {
  const [item] = await gets(store, [key]);
  return item as T | undefined;
}
