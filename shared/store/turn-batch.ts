import { setImmediate } from 'node:timers';
import type { Store } from '../ports';

interface Batch<In, Out> {
  inputs: In[];
  waiters: Array<{ from: number; count: number; resolve: (outs: Out[]) => void; reject: (e: unknown) => void }>;
}

/**
 * Calls on one store made in the same turn of the event loop, made as one: `run` gets every
 * caller's inputs in order and answers one output per input (or none at all, for writes), and
 * each caller gets its own inputs' outputs. Alone, a call waits one turn. On failure every
 * caller of the batch is told. One open batch per store object (per container: deps.ts
 * builds the store once).
 */
export function turnBatch<In, Out>(
  run: (store: Store, inputs: In[]) => Promise<Out[]>,
): (store: Store, inputs: readonly In[]) => Promise<Out[]> {
  const open = new WeakMap<Store, Batch<In, Out>>();
  const flush = (store: Store, batch: Batch<In, Out>) => {
    if (open.get(store) === batch) open.delete(store);
    // Through a promise, so that even a synchronous throw settles every waiter.
    Promise.resolve(batch.inputs)
      .then((inputs) => run(store, inputs))
      .then(
        (outs) => {
          for (const w of batch.waiters) w.resolve(outs.slice(w.from, w.from + w.count));
        },
        (e: unknown) => {
          for (const w of batch.waiters) w.reject(e);
        },
      );
  };
  return (store, inputs) => {
    let batch = open.get(store);
    if (!batch) {
      const created: Batch<In, Out> = { inputs: [], waiters: [] };
      open.set(store, created);
      // node:timers' own setImmediate, not the global one a test may have replaced.
      setImmediate(() => flush(store, created));
      batch = created;
    }
    const from = batch.inputs.length;
    batch.inputs.push(...inputs);
    const joined = batch;
    return new Promise((resolve, reject) => joined.waiters.push({ from, count: inputs.length, resolve, reject }));
  };
}
