import { needs } from './common';
import { release } from './outputs';
import { repositoryListing } from './listing-step';

export const listReleases = repositoryListing({
  id: 'github.list_releases',
  title: 'List Releases',
  toolset: 'repos',
  description: 'Lists releases of a repository, newest first (drafts only when the account can push), following pages up to `max_items`.',
  permissions: needs({ contents: 'read' }, 'repo'),
  route: 'GET /repos/{owner}/{repo}/releases',
  item: release,
});
