import { AppError } from '../../domain/errors';
import { isLimitedToList, isRepositoryAllowed, type AllowListed } from '../../domain/allow-list';
import type { Connection } from '../../domain/model';

/**
 * What `github.api_call` may send on a connection limited to repositories (docs/security.md, section 2):
 * deny by default. The only paths it can prove stay inside the allow-list are those that
 * name an allowed repository by owner and name, `/repos/{owner}/{repo}` and below, written
 * plainly; every other path (search, users, organizations, networks, `/repositories/{id}`,
 * GraphQL...) can reach other repositories in ways we cannot check, so it is refused.
 * Under that prefix, the few calls that create or move a repository elsewhere, or read
 * another repository through this one, are refused too. Connections without an allow-list
 * are not checked here (the URL guard still applies).
 */

// Written literally: the code host's own name alphabets (owner: letters, digits, `-`, and `_`
// on enterprise servers; repository: also `.`). No percent-encoding, so `%2F`, `%2e` and
// `oct%6F` cannot be read one way here and another way by the code host.
const ownerSegment = /^[A-Za-z0-9_-]+$/;
const repoSegment = /^[A-Za-z0-9_.-]+$/;
// Below the repository, segments may carry escapes (file paths), but not ones that could be
// read as a path separator by the code host.
const encodedSeparator = /%(?:2f|5c)/i;

/** Calls under an allowed repository that reach outside it, by method and sub-path. */
const crossingCalls: ReadonlyArray<{ method: string; sub: RegExp; rule: string }> = [
  { method: 'POST', sub: /^forks$/i, rule: 'a fork is a new repository in the account or an organization, outside the allow-list' },
  { method: 'POST', sub: /^generate$/i, rule: 'generating from a template creates a repository outside the allow-list' },
  { method: 'POST', sub: /^(?:.+\/)?transfer$/i, rule: 'a transfer moves the repository (or an item of it) to another owner' },
];
/** Compare specs naming another repository of the fork network (`base...owner:ref`). */
const crossRepoCompare = /^(?:dependency-graph\/)?compare\/.*(?::|%3a)/i;

export interface ScopeRefusal {
  rule: string;
  message: string;
}

function refusal(rule: string, why: string): ScopeRefusal {
  return { rule, message: why };
}

/**
 * Why `method relativePath` may not be sent on a connection limited to `allowed`, or
 * undefined when it addresses one of those repositories. `relativePath` is the path below
 * the API base as it goes on the wire (after the URL guard), without the query.
 */
export function scopeRefusal(connection: AllowListed, method: string, relativePath: string): ScopeRefusal | undefined {
  const segments = relativePath.split('/');
  if (segments[0] !== '' || segments[1]?.toLowerCase() !== 'repos' || segments.length < 4) {
    return refusal(
      'repository_paths_only',
      `only /repos/{owner}/{repo} paths can be checked against the allow-list; ${relativePath} cannot`,
    );
  }
  const [, , owner = '', repo = '', ...rest] = segments;
  if (segments.slice(1).some((s) => s === '')) {
    return refusal('no_empty_segments', `${relativePath} has an empty path segment (//), which the code host may read differently`);
  }
  if (!ownerSegment.test(owner) || !repoSegment.test(repo) || repo === '.' || repo === '..') {
    return refusal(
      'plain_repository_name',
      'the owner and repository must be written literally (letters, digits, -, _ and . ; no percent-encoding)',
    );
  }
  const repository = `${owner}/${repo}`;
  if (!isRepositoryAllowed(connection, repository)) {
    return refusal('repository_not_listed', `${repository} is not in the allow-list`);
  }
  const sub = rest.join('/');
  if (rest.some((s) => encodedSeparator.test(s))) {
    return refusal('no_encoded_separators', 'a path below the repository must not carry an encoded / or \\ (%2F, %5C)');
  }
  for (const c of crossingCalls) {
    if (c.method === method.toUpperCase() && c.sub.test(sub)) return refusal('stays_in_repository', c.rule);
  }
  if (crossRepoCompare.test(sub)) {
    return refusal('stays_in_repository', 'a comparison with owner:ref reads another repository of the fork network');
  }
  return undefined;
}

/** Throws `forbidden` (details.reason `outside_allow_list`) unless the call provably stays in the allow-list. */
export function assertApiCallInScope(connection: AllowListed & Pick<Connection, 'id'>, method: string, relativePath: string): void {
  if (!isLimitedToList(connection)) return;
  const r = scopeRefusal(connection, method, relativePath);
  if (!r) return;
  throw new AppError(
    'forbidden',
    `Connection ${connection.id} is limited to ${connection.repositories.join(', ') || 'no repository'}; github.api_call sends only what provably stays inside that list (deny by default), and refused ${method.toUpperCase()} ${relativePath}: ${r.message}`,
    { reason: 'outside_allow_list', rule: r.rule, allowed: connection.repositories },
  );
}
