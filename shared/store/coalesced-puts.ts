import type { Item, Key, Store } from '../ports';
import { turnBatch } from './turn-batch';

type Written = Item | (Key & object);

const puts = turnBatch<Written, never>(async (store, items) => {
  await store.putAll(items);
  return [];
});

/**
 * Unconditional puts made in the same turn of the event loop, written together: one
 * `putAll` (BatchWriteItem, 25 items a call) for all of them. The "done" marks of work that
 * finished together (deliveries whose enqueue was one group commit, events whose POSTs were
 * answered in one turn) cost one call instead of one each; alone, a put waits one turn.
 * Each caller's promise settles with the whole batch's write: on failure every caller of the
 * batch is told, although some of the items may have been written (they are idempotent
 * marks, written again on the next attempt).
 */
export async function putCoalesced(store: Store, items: readonly Written[]): Promise<void> {
  await puts(store, items);
}
