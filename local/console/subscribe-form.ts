import type { Provider, SubscriptionFilters } from '../../shared/domain/model';
import type { TriggerCatalog } from '../../shared/domain/trigger-catalog';
import { triggerIds, type TriggerId } from '../../shared/domain/triggers';
import { acceptedFilters, targetsAccepted } from '../../shared/subscriptions/trigger-rules';

/**
 * The console's subscribe form: the triggers a person can choose (the catalog `GET /triggers`
 * serves, with the targets and filters each declares), and the way back from the posted
 * fields to a `POST /subscriptions` body, which the service then checks field by field.
 */
export interface TriggerChoice {
  id: TriggerId;
  title: string;
  provider: Provider;
  /** Whether the trigger takes a repository, an organization, or neither (the account). */
  repository: boolean;
  organization: boolean;
  filters: ReadonlyArray<keyof SubscriptionFilters>;
}

export function triggerChoices(catalog: TriggerCatalog): TriggerChoice[] {
  return triggerIds.map((id) => {
    const targets = targetsAccepted(catalog, id);
    return {
      id,
      title: catalog[id].title,
      provider: catalog[id].provider,
      repository: targets.includes('repository'),
      organization: targets.includes('organization'),
      filters: acceptedFilters(catalog, id),
    };
  });
}

/** Filters that hold a list (one per line or comma-separated); the others hold one value. */
const listFilters: ReadonlySet<string> = new Set(['branches', 'labels']);

/** The form's parameter name of a filter. */
export const filterParam = (name: string) => `filter.${name}`;

const filled = (form: URLSearchParams, name: string): string | undefined => {
  const value = form.get(name)?.trim();
  return value === undefined || value === '' ? undefined : value;
};

/**
 * A `POST /subscriptions` body from the posted form: empty fields are left out; a list
 * filter is split on commas and new lines. Every `filter.*` field posted is passed on, so a
 * filter the trigger does not take is refused by the service with its field named.
 */
export function subscriptionBodyFromForm(form: URLSearchParams): Record<string, unknown> {
  const body: Record<string, unknown> = {};
  for (const name of ['connectionId', 'trigger', 'agentId', 'repository', 'organization']) {
    const value = filled(form, name);
    if (value !== undefined) body[name] = value;
  }
  const filters: Record<string, unknown> = {};
  for (const [param] of form) {
    if (!param.startsWith('filter.')) continue;
    const name = param.slice('filter.'.length);
    const value = filled(form, param);
    if (value === undefined) continue;
    filters[name] = listFilters.has(name)
      ? value
          .split(/[,\n]/)
          .map((v) => v.trim())
          .filter((v) => v !== '')
      : value;
  }
  if (Object.keys(filters).length > 0) body.filters = filters;
  return body;
}
