import type { ManagedHookPaths } from '../../domain/managed-hooks';
import type { Store } from '../../ports';
import { EndpointRepo } from '../../store/endpoint-repo';

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

/** `/repos/{owner}/{repo}/hooks[/{id}[/config|pings|tests|deliveries...]]` and the same under `/orgs/{org}`. */
export const codeHostHookPaths: ManagedHookPaths = {
  path: /^\/(?:repos\/[^/]+\/[^/]+|orgs\/[^/]+)\/hooks(?:\/([^/]+)(?:\/.*)?)?\/?$/i,
  storedId: (id) => id.replace(/^0+(?=\d)/, ''),
  refusal: (id) =>
    `Hook ${id} is managed by this product (its subscriptions' deliveries come through it): API calls may not read, change or delete it; subscribe or unsubscribe instead`,
};
