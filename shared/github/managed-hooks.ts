import { AppError } from '../domain/errors';
import type { Store } from '../ports';
import { EndpointRepo } from '../store/endpoint-repo';

/**
 * The code host's hooks the product registered (one per connection and target, in the
 * endpoint table) are not `github.api_call`'s to touch: deleting one silences every
 * subscription on it, re-pointing one sends its deliveries elsewhere. Hook ids are unique
 * across the code host, so one set of every endpoint's hook id is enough to tell them.
 */
export async function managedCodeHostHookIds(store: Store): Promise<ReadonlySet<string>> {
  const endpoints = await new EndpointRepo(store).list();
  return new Set(endpoints.flatMap((e) => (e.hookId === undefined ? [] : [String(e.hookId)])));
}

// `/repos/{owner}/{repo}/hooks[/{id}[/config|pings|tests|deliveries...]]` and the same under `/orgs/{org}`.
const hooksPath = /^\/(?:repos\/[^/]+\/[^/]+|orgs\/[^/]+)\/hooks(?:\/([^/]+)(?:\/.*)?)?\/?$/i;

function decoded(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

/**
 * What a call on `relativePath` (as it goes on the wire) does to hooks: `'list'` for a
 * listing whose answer must leave the product's hooks out, undefined for anything else.
 * Throws `managed_hook` for any call on one of the product's hooks (read, change, delete,
 * ping, test, its config or deliveries).
 */
export async function guardManagedHooks(
  managedHookIds: (() => Promise<ReadonlySet<string>>) | undefined,
  method: string,
  relativePath: string,
): Promise<'list' | undefined> {
  const m = hooksPath.exec(relativePath.replace(/\/{2,}/g, '/'));
  if (!m || !managedHookIds) return undefined;
  const id = m[1] === undefined ? undefined : decoded(m[1]).trim();
  if (id === undefined) return method.toUpperCase() === 'GET' ? 'list' : undefined;
  if ((await managedHookIds()).has(id.replace(/^0+(?=\d)/, ''))) {
    throw new AppError(
      'managed_hook',
      `Hook ${id} is managed by this product (its subscriptions' deliveries come through it): API calls may not read, change or delete it; subscribe or unsubscribe instead`,
      { hookId: id },
    );
  }
  return undefined;
}

/** A hook list with the product's own hooks left out (their URLs are the product's intake). */
export async function withoutManagedHooks(data: unknown, managedHookIds: () => Promise<ReadonlySet<string>>): Promise<unknown> {
  if (!Array.isArray(data)) return data;
  const managed = await managedHookIds();
  return data.filter((h) => !(h !== null && typeof h === 'object' && managed.has(String((h as { id?: unknown }).id))));
}
