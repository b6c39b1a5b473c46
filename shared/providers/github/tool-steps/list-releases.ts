import * as z from 'zod';
import { githubStep, needs, pageInput, pagesOf, repoInput, repositoryOf } from './common';
import { listed, release } from './outputs';

export const listReleases = githubStep({
  id: 'github.list_releases',
  title: 'List Releases',
  toolset: 'repos',
  description: 'Lists releases of a repository, newest first (drafts only when the account can push), following pages up to `max_items`.',
  output: () => listed(release()),
  permissions: needs({ contents: 'read' }, 'repo'),
  input: () => z.strictObject({ ...repoInput, ...pageInput }),
  repositoryOf,
  run: pagesOf('GET /repos/{owner}/{repo}/releases'),
});
