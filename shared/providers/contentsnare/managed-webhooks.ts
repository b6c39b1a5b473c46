import type { ManagedHookPaths } from '../../domain/managed-hooks';
import type { Store } from '../../ports';
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

/** `webhooks` and `webhooks/{id}` below the partner API's base. */
export const snareWebhookPaths: ManagedHookPaths = {
  path: /^\/webhooks(?:\/([^/]+)(?:\/.*)?)?\/?$/i,
  refusal: (id) =>
    `Webhook ${id} is managed by this product (the connection's triggers come through it): API calls may not read, change or delete it; subscribe or unsubscribe instead`,
};
