import { AppError } from '../domain/errors';
import type { Store } from '../ports';
import { SnareHookRepo } from './snare-hook';

/**
 * The collection service's webhooks the product registered (one per connection) are not
 * `contentsnare.api_call`'s to touch: the URL's path token is the intake's only
 * authentication (the service signs nothing), so reading it would let anyone post forged
 * deliveries; changing or deleting it silences the connection's triggers.
 */
export async function managedSnareHookIds(store: Store): Promise<ReadonlySet<string>> {
  const hooks = await new SnareHookRepo(store).list(Number.POSITIVE_INFINITY);
  return new Set(hooks.flatMap((h) => (h.hookId === undefined ? [] : [h.hookId])));
}

// `webhooks` and `webhooks/{id}` below the partner API's base.
const webhooksPath = /^\/webhooks(?:\/([^/]+)(?:\/.*)?)?\/?$/i;

function decoded(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

/**
 * What a call on `relativePath` (below `/partner_api/v1`) does to webhooks: `'list'` for a
 * listing whose answer must leave the product's webhooks out. Throws `managed_hook` for a
 * call on one of them.
 */
export async function guardManagedWebhooks(
  managedHookIds: (() => Promise<ReadonlySet<string>>) | undefined,
  method: string,
  relativePath: string,
): Promise<'list' | undefined> {
  const m = webhooksPath.exec(relativePath.replace(/\/{2,}/g, '/'));
  if (!m || !managedHookIds) return undefined;
  if (m[1] === undefined) return method.toUpperCase() === 'GET' ? 'list' : undefined;
  const id = decoded(m[1]).trim();
  if ((await managedHookIds()).has(id)) {
    throw new AppError(
      'managed_hook',
      `Webhook ${id} is managed by this product (the connection's triggers come through it): API calls may not read, change or delete it; subscribe or unsubscribe instead`,
      { hookId: id },
    );
  }
  return undefined;
}

/** A webhook list page (`{pagination, results}`, or a bare array) with the product's own webhooks left out. */
export async function withoutManagedWebhooks(data: unknown, managedHookIds: () => Promise<ReadonlySet<string>>): Promise<unknown> {
  const managed = await managedHookIds();
  const keep = (items: unknown[]) =>
    items.filter((h) => !(h !== null && typeof h === 'object' && managed.has(String((h as { id?: unknown }).id))));
  if (Array.isArray(data)) return keep(data);
  if (data !== null && typeof data === 'object' && Array.isArray((data as { results?: unknown }).results)) {
    return { ...data, results: keep((data as { results: unknown[] }).results) };
  }
  return data;
}
