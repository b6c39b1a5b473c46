import * as z from 'zod';
import { githubStep, needs, pageInput, pagesOf, repoInput, repositoryOf } from './common';
import { listed } from './outputs';

/** A tag as `repos/list-tags` lists it. */
const tag = () =>
  z.object({
    name: z.string(),
    commit: z.object({ sha: z.string(), url: z.string().optional() }).describe('The commit the tag points at'),
    zipball_url: z.string().optional(),
    tarball_url: z.string().optional(),
  });

export const listTags = githubStep({
  id: 'github.list_tags',
  title: 'List Tags',
  toolset: 'repos',
  description:
    "Lists a repository's tags, newest first, each with the SHA of the commit it points at, following pages up to `max_items`. A tag need not have a release: for release notes and assets use github.get_release_by_tag or github.list_releases.",
  output: () => listed(tag()),
  permissions: needs({ contents: 'read' }, 'repo'),
  input: () => z.strictObject({ ...repoInput, ...pageInput }),
  repositoryOf,
  run: pagesOf('GET /repos/{owner}/{repo}/tags'),
});
