import type { Provider } from '../domain/model';
import { joinCatalog, type CatalogRows, type TriggerCatalog } from '../domain/trigger-catalog';

/**
 * One provider as the core sees it: the core asks a connection's (or a trigger's) provider
 * for what differs, and never which provider it is. Each seam adds the part it takes from
 * its own folder by extending this interface (`declare module`), so the ports name no seam
 * above them and the registry (`shared/wiring/providers.ts`) cannot compile without every
 * part. A provider's parts live in its room, `shared/providers/<id>/`.
 */
export interface ProviderContract {
  id: Provider;
  /** How a message names a connection of this provider: `code-host`, `collection-service`. */
  connectionKind: string;
  /** Its rows of the trigger catalog: each of its own triggers, defined in its room (`triggers/`). */
  triggers: CatalogRows;
}

/** Every provider by its id: what `AppContext.providers` holds. */
export type Providers = Readonly<Record<Provider, ProviderContract>>;

const catalogs = new WeakMap<Providers, TriggerCatalog>();

/** The trigger catalog of these providers: every provider's rows, in the registry's order; joined once per registry. */
export function triggerCatalogOf(providers: Providers): TriggerCatalog {
  let catalog = catalogs.get(providers);
  if (!catalog) {
    catalog = joinCatalog(Object.values(providers).map((p) => p.triggers));
    catalogs.set(providers, catalog);
  }
  return catalog;
}
