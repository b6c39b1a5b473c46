import type { Store } from '../../shared/ports';

/** `store` with some of its calls replaced: a test's view of the table that counts, fails or holds those calls. */
export function storeOver(store: Store, over: Partial<Store> = {}): Store {
  return {
    get: store.get.bind(store),
    getAll: store.getAll.bind(store),
    put: store.put.bind(store),
    putAll: store.putAll.bind(store),
    delete: store.delete.bind(store),
    query: store.query.bind(store),
    ...over,
  };
}
