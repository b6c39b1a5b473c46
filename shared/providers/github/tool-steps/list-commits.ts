import * as z from 'zod';
import { githubStep, gitRef, needs, pageInput, pagesOf, repoInput, repositoryOf } from './common';
import { commit, listed } from './outputs';

const input = () =>
  z.strictObject({
    ...repoInput,
    sha: gitRef('Branch name or commit SHA to list from (default: the default branch)').optional(),
    path: z.string().max(4096).optional().describe('Only commits touching this file path'),
    author: z.string().max(256).optional().describe('Only commits by this login or e-mail'),
    committer: z.string().max(256).optional().describe('Only commits committed by this login or e-mail'),
    since: z.iso.datetime({ offset: true }).optional().describe('Only commits after this time (ISO 8601)'),
    until: z.iso.datetime({ offset: true }).optional().describe('Only commits before this time (ISO 8601)'),
    ...pageInput,
  });

export const listCommits = githubStep({
  id: 'github.list_commits',
  title: 'List Commits',
  toolset: 'repos',
  description: 'Lists commits of a repository, newest first, following pages up to `max_items`.',
  output: () => listed(commit()),
  permissions: needs({ contents: 'read' }, 'repo'),
  input,
  repositoryOf,
  run: pagesOf('GET /repos/{owner}/{repo}/commits'),
});
