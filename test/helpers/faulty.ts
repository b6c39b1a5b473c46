import type { Key, Queue, OutgoingMessage, Store } from '../../shared/ports';

/**
 * A switch a test flips to make a wrapped port fail (or hang) and recover. Outages are
 * driven by the test, never by wall-clock time, so fault tests stay deterministic.
 */
export class FaultSwitch {
  /** 'fail': calls throw at once; 'hang': calls never settle (a dependency that stopped answering). */
  mode: 'ok' | 'fail' | 'hang' = 'ok';
  /** Calls refused or hung since the switch was made. */
  faults = 0;

  fail(): void {
    this.mode = 'fail';
  }

  hang(): void {
    this.mode = 'hang';
  }

  heal(): void {
    this.mode = 'ok';
  }

  /** Runs `call` unless the switch says otherwise. */
  guard<T>(what: string, call: () => Promise<T>): Promise<T> {
    if (this.mode === 'ok') return call();
    this.faults++;
    if (this.mode === 'hang') return new Promise<T>(() => undefined);
    return Promise.reject(new InjectedFault(what));
  }
}

/** The error a failing port throws: recognisable in logs, never a ConditionFailedError. */
export class InjectedFault extends Error {
  constructor(what: string) {
    super(`injected fault: ${what} unavailable`);
    this.name = 'InjectedFault';
  }
}

type StoreOp = 'get' | 'put' | 'delete' | 'query';

/**
 * The Store with an outage switch. `ops` limits the outage to some operations (e.g. only
 * writes), so a test can fail the claim while reads still work.
 */
export function faultyStore(inner: Store, sw: FaultSwitch, ops: readonly StoreOp[] = ['get', 'put', 'delete', 'query']): Store {
  const on = (op: StoreOp) => ops.includes(op);
  return {
    get: (key: Key, o) => (on('get') ? sw.guard('store.get', () => inner.get(key, o)) : inner.get(key, o)),
    getAll: (keys, o) => (on('get') ? sw.guard('store.getAll', () => inner.getAll(keys, o)) : inner.getAll(keys, o)),
    put: (item, o) => (on('put') ? sw.guard('store.put', () => inner.put(item, o)) : inner.put(item, o)),
    putAll: (items) => (on('put') ? sw.guard('store.putAll', () => inner.putAll(items)) : inner.putAll(items)),
    delete: (key: Key, o) => (on('delete') ? sw.guard('store.delete', () => inner.delete(key, o)) : inner.delete(key, o)),
    query: (input) => (on('query') ? sw.guard('store.query', () => inner.query(input)) : inner.query(input)),
  } satisfies Store;
}

/** The producer side of a queue with an outage switch (the consumer side is left alone). */
export function faultyQueue(inner: Queue, sw: FaultSwitch): Queue {
  return { sendBatch: (messages: OutgoingMessage[]) => sw.guard('queue.sendBatch', () => inner.sendBatch(messages)) };
}

/** Counts the producer's calls and messages (the per-delivery AWS call benchmark). */
export class CountingQueue implements Queue {
  calls = 0;
  messages = 0;
  constructor(private readonly inner: Queue) {}
  async sendBatch(messages: OutgoingMessage[]): Promise<void> {
    this.calls++;
    this.messages += messages.length;
    await this.inner.sendBatch(messages);
  }
}
