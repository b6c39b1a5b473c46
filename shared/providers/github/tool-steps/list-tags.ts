import * as z from 'zod';
import { needs } from './common';
import { repositoryListing } from './listing-step';

/** A tag as `repos/list-tags` lists it. */
const tag = () =>
  z.object({
    name: z.string(),
    commit: z.object({ sha: z.string(), url: z.string().optional() }).describe('The commit the tag points at'),
    zipball_url: z.string().optional(),
    tarball_url: z.string().optional(),
  });

export const listTags = repositoryListing({
  id: 'github.list_tags',
  title: 'List Tags',
  toolset: 'repos',
  description:
    "Lists a repository's tags, newest first, each with the SHA of the commit it points at, following pages up to `max_items`. A tag need not have a release: for release notes and assets use github.get_release_by_tag or github.list_releases.",
  permissions: needs({ contents: 'read' }, 'repo'),
  route: 'GET /repos/{owner}/{repo}/tags',
  item: tag,
});
