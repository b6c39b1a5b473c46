import * as z from 'zod';
import { gitRef, needs } from './common';
import { commit } from './outputs';
import { repositoryListing } from './listing-step';

/** The code host's filters of this listing. */
const filters = () => ({
  sha: gitRef('Branch name or commit SHA to list from (default: the default branch)').optional(),
  path: z.string().max(4096).optional().describe('Only commits touching this file path'),
  author: z.string().max(256).optional().describe('Only commits by this login or e-mail'),
  committer: z.string().max(256).optional().describe('Only commits committed by this login or e-mail'),
  since: z.iso.datetime({ offset: true }).optional().describe('Only commits after this time (ISO 8601)'),
  until: z.iso.datetime({ offset: true }).optional().describe('Only commits before this time (ISO 8601)'),
});

export const listCommits = repositoryListing({
  id: 'github.list_commits',
  title: 'List Commits',
  toolset: 'repos',
  description: 'Lists commits of a repository, newest first, following pages up to `max_items`.',
  permissions: needs({ contents: 'read' }, 'repo'),
  route: 'GET /repos/{owner}/{repo}/commits',
  item: commit,
  filters: filters,
});
