import * as z from 'zod';
import { gitRef, needs } from './common';
import { pullRequest } from './outputs';
import { repositoryListing } from './listing-step';

/** The code host's filters of this listing. */
const filters = () => ({
  state: z.enum(['open', 'closed', 'all']).optional().describe('open (default), closed or all'),
  head: z.string().min(1).max(300).optional().describe('Only pull requests from this branch, written user:branch or organization:branch'),
  base: gitRef('Only pull requests into this branch').optional(),
  sort: z.enum(['created', 'updated', 'popularity', 'long-running']).optional().describe('Sort field (default: created)'),
  direction: z.enum(['asc', 'desc']).optional().describe('Sort order (default: desc, except for popularity and long-running)'),
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

export const listPullRequests = repositoryListing({
  id: 'github.list_pull_requests',
  title: 'List Pull Requests',
  description:
    "Lists a repository's pull requests, filtered by state, head branch or base branch, newest first, following pages up to `max_items`. Use it to find the pull request of a branch; use search_issues_and_pull_requests to search by text, author or label across repositories, and get_pull_request for one pull request's mergeability and size.",
  permissions: needs({ pull_requests: 'read' }, 'repo'),
  toolset: 'pull_requests',
  route: 'GET /repos/{owner}/{repo}/pulls',
  item: listedPullRequest,
  filters: filters,
});
