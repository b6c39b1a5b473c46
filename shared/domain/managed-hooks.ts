import { AppError } from './errors';

/** How one provider's API addresses its hooks, for the guard below. */
export interface ManagedHookPaths {
  /** A path (as it goes on the wire, below the API's base) naming the hooks, the id in group 1 when one is named. */
  path: RegExp;
  /** The id as the product stores it (e.g. without leading zeros). */
  storedId?: (id: string) => string;
  /** The refusal's message for a call on one of the product's hooks. */
  refusal: (id: string) => string;
}

function decoded(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

/**
 * What an API call on `relativePath` does to the hooks the product registered: `'list'` for a
 * listing whose answer must leave them out, undefined for anything else. Throws
 * `managed_hook` for any call on one of them (read, change, delete, or anything below it),
 * before anything is sent: the product's triggers come through those hooks.
 */
export async function guardManagedHooks(
  paths: ManagedHookPaths,
  managedHookIds: (() => Promise<ReadonlySet<string>>) | undefined,
  method: string,
  relativePath: string,
): Promise<'list' | undefined> {
  const m = paths.path.exec(relativePath.replace(/\/{2,}/g, '/'));
  if (!m || !managedHookIds) return undefined;
  if (m[1] === undefined) return method.toUpperCase() === 'GET' ? 'list' : undefined;
  const id = decoded(m[1]).trim();
  if ((await managedHookIds()).has(paths.storedId ? paths.storedId(id) : id)) {
    throw new AppError('managed_hook', paths.refusal(id), { hookId: id });
  }
  return undefined;
}

/** A hook list (a bare array, or a page `{results: [...]}`) with the product's own hooks left out. */
export async function withoutManagedHooks(data: unknown, managedHookIds: () => Promise<ReadonlySet<string>>): Promise<unknown> {
  const managed = await managedHookIds();
  const keep = (items: unknown[]) =>
    items.filter((h) => !(h !== null && typeof h === 'object' && managed.has(String((h as { id?: unknown }).id))));
  if (Array.isArray(data)) return keep(data);
  if (data !== null && typeof data === 'object' && Array.isArray((data as { results?: unknown }).results)) {
    return { ...data, results: keep((data as { results: unknown[] }).results) };
  }
  return data;
}
