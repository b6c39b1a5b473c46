import type { TriggerSource } from './mapping/types';
import type { Provider, SubscriptionFilters, SubscriptionTarget } from './model';
import { triggerIds, type TriggerId } from './triggers';
import type { Grant } from './trigger-permissions';

/** What the platform shows and needs to know about one trigger. */
export interface TriggerDefinition {
  id: TriggerId;
  /** Whose events they are: the code host's, or the collection service's. */
  provider: Provider;
  title: string;
  /** When it fires (docs/triggers.md, "The triggers"). */
  description: string;
  /** What counts and what does not, as the code host really behaves. */
  includes: string;
  /** The webhook events a hook must carry to serve this trigger (empty: polled only). */
  events: readonly string[];
  /** Filters a subscription to this trigger may set. */
  filters: ReadonlyArray<keyof SubscriptionFilters>;
  /** How its events arrive for this target; undefined when the trigger does not apply to it. */
  source(target: SubscriptionTarget): TriggerSource | undefined;
  /**
   * What a subscription on `target` needs of a code-host token (trigger-permissions.ts); undefined where the
   * trigger does not apply, and for the collection service's triggers.
   */
  permissions(target: SubscriptionTarget): Grant | undefined;
  /** Collection service only: whether the scheduled check recovers a missed delivery (`includes` says why not). */
  recoverable?: boolean;
}

/** Every trigger's definition. Each provider writes its own rows in its room; the catalog joins them. */
export type TriggerCatalog = Readonly<Record<TriggerId, TriggerDefinition>>;

/** One provider's rows: its own triggers only. */
export type CatalogRows = Readonly<Partial<Record<TriggerId, TriggerDefinition>>>;

/**
 * The catalog of these providers' rows, in their order. A trigger id without a row is a
 * provider that forgot one: refused here, when the catalog is first built, not when a
 * subscription first names it.
 */
export function joinCatalog(parts: readonly CatalogRows[]): TriggerCatalog {
  const catalog: CatalogRows = Object.assign({}, ...parts);
  const missing = triggerIds.filter((id) => catalog[id] === undefined);
  if (missing.length > 0) throw new Error(`The trigger catalog has no row for ${missing.join(', ')}`);
  return catalog as TriggerCatalog;
}

/** The webhook events one hook must carry to serve these triggers: the union, sorted. */
export function webhookEventsFor(catalog: TriggerCatalog, triggers: readonly TriggerId[]): string[] {
  return [...new Set(triggers.flatMap((t) => catalog[t].events))].sort();
}
