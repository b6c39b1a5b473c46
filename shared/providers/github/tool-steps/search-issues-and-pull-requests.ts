import * as z from 'zod';
import { isLimitedToList, isRepositoryAllowed } from '../../../domain/allow-list';
import { githubStep, needs, pageInput, pagesOf } from './common';
import { issue, listed } from './outputs';

const input = () =>
  z.strictObject({
    q: z
      .string()
      .min(1)
      .max(256)
      .describe('Search query with the code host\'s qualifiers, e.g. "repo:owner/name is:open label:bug" or "is:pr author:octocat"'),
    sort: z
      .enum([
        'comments',
        'reactions',
        'reactions-+1',
        'reactions--1',
        'reactions-smile',
        'reactions-thinking_face',
        'reactions-heart',
        'reactions-tada',
        'interactions',
        'created',
        'updated',
      ])
      .optional()
      .describe('Sort field (default: best match)'),
    order: z.enum(['asc', 'desc']).optional().describe('Sort order when `sort` is given'),
    ...pageInput,
  });

type Found = { repository_url?: string };

/** `owner/name` of a search hit, from its `repository_url` (…/repos/owner/name). */
function repositoryOfHit(hit: Found): string | undefined {
  const m = /\/repos\/([^/]+\/[^/]+)$/.exec(hit.repository_url ?? '');
  return m?.[1];
}

export const searchIssuesAndPullRequests = githubStep({
  id: 'github.search_issues_and_pull_requests',
  title: 'Search Issues and Pull Requests',
  toolset: 'search',
  description:
    "Searches issues and pull requests across repositories with the code host's search syntax. When the connection is limited to given repositories, hits in other repositories are left out of the answer.",
  output: () =>
    listed(issue().extend({ score: z.number().optional() })).extend({
      total_count: z.number().int().optional(),
      incomplete_results: z.boolean().optional(),
      left_out: z.number().int().describe("Hits left out because they are outside the connection's repositories"),
    }),
  permissions: needs({ issues: 'read', pull_requests: 'read' }, 'repo'),
  input,
  async run(args, client, ctx) {
    const found = await pagesOf<Found>('GET /search/issues', 'items')(args, client);
    if (!isLimitedToList(ctx.connection)) return { ...found, left_out: 0 };
    const items = found.items.filter((hit) => {
      const repository = repositoryOfHit(hit);
      return repository !== undefined && isRepositoryAllowed(ctx.connection, repository);
    });
    return { ...found, items, count: items.length, left_out: found.items.length - items.length };
  },
});
