import * as z from 'zod';
import { githubStep, gitRef, needs, pageInput, pagesOf, repoInput, repositoryOf } from './common';
import { listed, pullRequest } from './outputs';

const input = () =>
  z.strictObject({
    ...repoInput,
    state: z.enum(['open', 'closed', 'all']).optional().describe('open (default), closed or all'),
    head: z.string().min(1).max(300).optional().describe('Only pull requests from this branch, written user:branch or organization:branch'),
    base: gitRef('Only pull requests into this branch').optional(),
    sort: z.enum(['created', 'updated', 'popularity', 'long-running']).optional().describe('Sort field (default: created)'),
    direction: z.enum(['asc', 'desc']).optional().describe('Sort order (default: desc, except for popularity and long-running)'),
    ...pageInput,
  });

/** A listed pull request: the list answer leaves out what the code host computes per pull request (mergeability, size). */
const listedPullRequest = () =>
  pullRequest().omit({
    merged: true,
    mergeable: true,
    mergeable_state: true,
    maintainer_can_modify: true,
    commits: true,
    additions: true,
    deletions: true,
    changed_files: true,
  });

export const listPullRequests = githubStep({
  id: 'github.list_pull_requests',
  title: 'List Pull Requests',
  description:
    "Lists a repository's pull requests, filtered by state, head branch or base branch, newest first, following pages up to `max_items`. Use it to find the pull request of a branch; use search_issues_and_pull_requests to search by text, author or label across repositories, and get_pull_request for one pull request's mergeability and size.",
  output: () => listed(listedPullRequest()),
  permissions: needs({ pull_requests: 'read' }, 'repo'),
  toolset: 'pull_requests',
  input,
  repositoryOf,
  run: pagesOf('GET /repos/{owner}/{repo}/pulls'),
});
