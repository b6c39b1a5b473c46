import { setImmediate } from 'node:timers';
import type { Item, Key, Store } from '../ports';

type Written = Item | (Key & object);

interface Batch {
  items: Written[];
  waiters: Array<{ resolve: () => void; reject: (e: unknown) => void }>;
}

// One open batch per store object (per container: deps.ts builds the store once).
const open = new WeakMap<Store, Batch>();

/**
 * Unconditional puts made in the same turn of the event loop, written together: one
 * `putAll` (BatchWriteItem, 25 items a call) for all of them. The "done" marks of work that
 * finished together (deliveries whose enqueue was one group commit, events whose POSTs were
 * answered in one turn) cost one call instead of one each; alone, a put waits one turn.
 * Each caller's promise settles with the whole batch's write: on failure every caller of the
 * batch is told, although some of the items may have been written (they are idempotent
 * marks, written again on the next attempt).
 */
export function putCoalesced(store: Store, items: readonly Written[]): Promise<void> {
  let batch = open.get(store);
  if (!batch) {
    const created: Batch = { items: [], waiters: [] };
    open.set(store, created);
    // node:timers' own setImmediate, not the global one a test may have replaced.
    setImmediate(() => flush(store, created));
    batch = created;
  }
  batch.items.push(...items);
  const joined = batch;
  return new Promise((resolve, reject) => joined.waiters.push({ resolve, reject }));
}

function flush(store: Store, batch: Batch): void {
  if (open.get(store) === batch) open.delete(store);
  // Through a promise, so that even a synchronous throw settles every waiter.
  Promise.resolve(batch.items)
    .then((items) => store.putAll(items))
    .then(
      () => {
        for (const w of batch.waiters) w.resolve();
      },
      (e: unknown) => {
        for (const w of batch.waiters) w.reject(e);
      },
    );
}
