import * as z from 'zod';
import { collectPages, defined, githubStep, needs, owner, pageInput, repoInput, repositoryOf } from './common';
import { issue, listed } from './outputs';

const input = () =>
  z.strictObject({
    ...repoInput,
    state: z.enum(['open', 'closed', 'all']).optional().describe('open (default), closed or all'),
    labels: z.array(z.string().min(1).max(100)).max(20).optional().describe('Only issues carrying all these labels'),
    assignee: z.string().min(1).max(100).optional().describe('A login, "none" (unassigned) or "*" (any)'),
    creator: owner.optional().describe('Only issues opened by this login'),
    mentioned: owner.optional().describe('Only issues mentioning this login'),
    milestone: z.string().min(1).max(100).optional().describe('A milestone number, "none" or "*"'),
    since: z.iso.datetime({ offset: true }).optional().describe('Only issues updated at or after this time (ISO 8601)'),
    sort: z.enum(['created', 'updated', 'comments']).optional().describe('Sort field (default: created)'),
    direction: z.enum(['asc', 'desc']).optional().describe('Sort order (default: desc)'),
    ...pageInput,
  });

export const listIssues = githubStep({
  id: 'github.list_issues',
  title: 'List Issues',
  description:
    "Lists a repository's issues filtered by state, labels, assignee, author, mention or milestone, newest first, following pages up to `max_items`. The code host counts pull requests as issues: those carry `pull_request`. Use search_issues_and_pull_requests for text search or several repositories, get_issue for one issue.",
  output: () => listed(issue()),
  permissions: needs({ issues: 'read' }, 'repo'),
  toolset: 'issues',
  input,
  repositoryOf,
  async run(args, client) {
    const { max_items, labels, ...params } = args;
    const query = defined({ ...params, labels: labels?.join(',') });
    return collectPages(client, 'GET /repos/{owner}/{repo}/issues', query, max_items);
  },
});
