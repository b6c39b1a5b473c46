import type { TriggerSource } from '../domain/mapping/types';
import type { SubscriptionFilters, SubscriptionTarget } from '../domain/model';
import { webhookEventsFor, type TriggerCatalog } from '../domain/trigger-catalog';
import type { TriggerId } from '../domain/triggers';

/**
 * What the subscription machinery needs from the trigger catalog, in one place, so the
 * rest of this folder does not depend on the catalog's exact shape.
 */

/** How a trigger's events arrive for this target; undefined when the target does not fit the trigger. */
export function sourceFor(catalog: TriggerCatalog, trigger: TriggerId, target: SubscriptionTarget): TriggerSource | undefined {
  let source: TriggerSource | undefined;
  try {
    source = catalog[trigger].source(target);
  } catch {
    return undefined;
  }
  if (!source) return undefined;
  if (source.kind === 'polling') return source;
  // The collection service's webhooks are the account's: they take no repository or organization.
  if (source.scope === 'account') return target.kind === 'account' ? source : undefined;
  if (target.kind === 'account') return undefined;
  if (source.scope === 'repository' && target.kind !== 'repository') return undefined;
  if (source.scope === 'organization' && target.kind !== 'organization') return undefined;
  return source;
}

/** Which targets a trigger takes, for error messages. */
export function targetsAccepted(catalog: TriggerCatalog, trigger: TriggerId): string[] {
  const out: string[] = [];
  if (sourceFor(catalog, trigger, { kind: 'repository', repository: 'o/r' })) out.push('repository');
  if (sourceFor(catalog, trigger, { kind: 'organization', organization: 'o' })) out.push('organization');
  if (sourceFor(catalog, trigger, { kind: 'account' })) out.push('the account (neither repository nor organization)');
  return out;
}

export function acceptedFilters(catalog: TriggerCatalog, trigger: TriggerId): ReadonlyArray<keyof SubscriptionFilters> {
  return catalog[trigger].filters;
}

/** The code-host events a hook must carry for these triggers (sorted, no duplicates). */
export function hookEventsFor(catalog: TriggerCatalog, triggers: readonly TriggerId[]): string[] {
  return [...new Set(webhookEventsFor(catalog, [...triggers]))].sort();
}

/** Triggers the poller can serve when no webhook can be made (gists, new repositories). */
const pollable: ReadonlySet<TriggerId> = new Set<TriggerId>(['github.new_gist', 'github.new_repository']);

export function canPoll(trigger: TriggerId): boolean {
  return pollable.has(trigger);
}
