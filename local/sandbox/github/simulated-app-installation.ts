import type { RecordedRequest, SimulatedResponse } from '../simulated-http';

/**
 * What GitHub answers an installation token beyond the App's own routes, from its REST
 * reference and "Permissions required for GitHub Apps":
 * - `GET /installation/repositories` (`apps/list-repos-accessible-to-installation`):
 *   `{total_count, repository_selection, repositories}`, `per_page` up to 100 and `page`;
 * - a route whose permission the installation was not granted (or granted read only, for a
 *   write) is `403 "Resource not accessible by integration"` with
 *   `X-Accepted-GitHub-Permissions` naming what it needs. Only the route families below are
 *   checked; any other is left to the rest of the simulated code host.
 */

/** The permission a repository route needs, by the path's resource after `/repos/{owner}/{repo}` (GitHub's grouping). */
const repositoryResources: Array<[RegExp, string]> = [
  [/^\/(issues|labels|milestones|assignees)(\/|$)/, 'issues'],
  [/^\/pulls(\/|$)/, 'pull_requests'],
  [/^\/(contents|git|commits|branches|compare|readme|releases)(\/|$)/, 'contents'],
  [/^\/actions(\/|$)/, 'actions'],
  [/^\/hooks(\/|$)/, 'repository_hooks'],
];

/** The permission (and level) a request needs, or undefined for a route not checked here. */
export function neededPermission(method: string, path: string): { name: string; level: 'read' | 'write' } | undefined {
  const level = method === 'GET' || method === 'HEAD' ? 'read' : 'write';
  const repo = /^\/repos\/[^/]+\/[^/]+(\/.*)?$/.exec(path);
  if (repo) {
    const rest = repo[1] ?? '';
    if (rest === '') return { name: level === 'read' ? 'metadata' : 'administration', level };
    const found = repositoryResources.find(([re]) => re.test(rest));
    return found ? { name: found[1], level } : undefined;
  }
  if (method === 'POST' && (path === '/user/repos' || /^\/orgs\/[^/]+\/repos$/.test(path)))
    return { name: 'administration', level: 'write' };
  return undefined;
}

/** GitHub's refusal when the installation lacks the permission a route needs, else undefined. */
export function permissionRefusal(granted: Record<string, string>, method: string, path: string): SimulatedResponse | undefined {
  const needed = neededPermission(method, path);
  if (!needed) return undefined;
  const has = granted[needed.name];
  if (has === 'write' || (has === 'read' && needed.level === 'read')) return undefined;
  return {
    status: 403,
    headers: { 'x-accepted-github-permissions': `${needed.name}=${needed.level}` },
    body: {
      message: 'Resource not accessible by integration',
      documentation_url: 'https://docs.github.com/rest',
      status: '403',
    },
  };
}

/** `GET /installation/repositories`, one page of the installation's repositories (objects in the repository shape). */
export function installationRepositoriesPage(
  req: RecordedRequest,
  selection: 'all' | 'selected',
  repositories: readonly Record<string, unknown>[],
): SimulatedResponse {
  const perPage = Math.min(Math.max(Number(req.query.get('per_page') ?? 30) || 30, 1), 100);
  const page = Math.max(Number(req.query.get('page') ?? 1) || 1, 1);
  return {
    body: {
      total_count: repositories.length,
      repository_selection: selection,
      repositories: repositories.slice((page - 1) * perPage, page * perPage),
    },
  };
}
