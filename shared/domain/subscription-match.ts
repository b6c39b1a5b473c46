import type { EventFacts, MappedEvent } from './mapping/types';
import type { Subscription, SubscriptionFilters } from './model';
import type { CatalogRows } from './trigger-catalog';

/**
 * Does this mapped event belong to this subscription? Pure.
 *
 * The repository (and organization) check is the cross-tenant guard (RELIABILITY.md 7): a
 * body signed by one endpoint but naming another repository reaches no subscription of that
 * repository. Names compare case-insensitively, as the code host treats them. A subscription
 * naming a repository or organization never matches an event that names none. When both the
 * subscription and the event carry the code host's id of the repository (or organization),
 * the ids decide, so a rename or a transfer neither loses the subscription nor lets a new
 * repository under the old name take it over; otherwise the names do (rows from before ids).
 *
 * Filters: only those the trigger accepts (its row of the catalog) are read; an empty list or
 * absent filter matches everything; a set filter needs the fact (a branches filter never
 * matches a tag push).
 */
export function matchesSubscription(
  sub: Pick<Subscription, 'repository' | 'organization' | 'filters' | 'trigger'> &
    Partial<Pick<Subscription, 'repositoryId' | 'organizationId'>>,
  mapped: MappedEvent,
  catalog: CatalogRows,
): boolean {
  if (sub.trigger !== mapped.trigger) return false;
  const facts = mapped.facts;
  if (sub.repository !== undefined && !sameSubject(sub.repositoryId, facts.repositoryId, sub.repository, facts.repository)) return false;
  if (sub.organization !== undefined && !sameSubject(sub.organizationId, facts.organizationId, sub.organization, organizationOf(facts)))
    return false;
  const accepted = new Set<keyof SubscriptionFilters>(catalog[sub.trigger]?.filters ?? []);
  const f = sub.filters ?? {};
  if (
    accepted.has('branches') &&
    f.branches?.length &&
    !f.branches.some((b) => facts.branch !== undefined && branchMatches(b, facts.branch))
  )
    return false;
  if (accepted.has('labels') && f.labels?.length && !f.labels.some((l) => (facts.labels ?? []).some((x) => sameName(l, x)))) return false;
  if (accepted.has('column') && f.column && !columnMatches(f.column, facts)) return false;
  if (accepted.has('project') && f.project && !projectMatches(f.project, facts)) return false;
  if (accepted.has('template') && f.template && !sameName(f.template, facts.request?.template)) return false;
  if (accepted.has('folder') && f.folder && !sameName(f.folder, facts.request?.folder)) return false;
  if (accepted.has('client') && f.client && !(facts.request?.clients ?? []).some((c) => sameName(f.client as string, c))) return false;
  return true;
}

function sameSubject(subId: number | undefined, factId: number | undefined, subName: string, factName: string | undefined): boolean {
  return subId !== undefined && factId !== undefined ? subId === factId : sameName(subName, factName);
}

function sameName(a: string, b: string | undefined): boolean {
  return b !== undefined && a.trim().toLowerCase() === b.trim().toLowerCase();
}

function organizationOf(facts: EventFacts): string | undefined {
  return facts.organization ?? facts.repository?.split('/')[0];
}

/**
 * Exact branch name, or a glob as in workflow files: `*` matches within one path segment
 * (`release/*` matches `release/1.0`, not `release/1/x`), `**` matches across segments.
 */
export function branchMatches(pattern: string, branch: string): boolean {
  if (!pattern.includes('*')) return pattern === branch;
  const source = pattern
    .split(/(\*\*|\*)/)
    .map((part) => (part === '**' ? '.*' : part === '*' ? '[^/]*' : part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')))
    .join('');
  return new RegExp(`^${source}$`).test(branch);
}

function columnMatches(column: string, facts: EventFacts): boolean {
  const c = facts.column;
  if (!c) return false;
  return (c.id !== undefined && c.id === column.trim()) || sameName(column, c.name);
}

function projectMatches(project: string, facts: EventFacts): boolean {
  const p = facts.project;
  if (!p) return false;
  const wanted = project.trim();
  return (p.nodeId !== undefined && p.nodeId === wanted) || (p.number !== undefined && String(p.number) === wanted.replace(/^#/, ''));
}
