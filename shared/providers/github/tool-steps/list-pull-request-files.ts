import { needs } from './common';
import { changedFile } from './outputs';
import { pullInput } from './pull-input';
import { repositoryListing } from './listing-step';

export const listPullRequestFiles = repositoryListing({
  id: 'github.list_pull_request_files',
  title: 'List Pull Request Files',
  description:
    'Lists the files a pull request changes, each with its status (added, modified, removed, renamed), line counts and its own patch, following pages up to `max_items` (the code host lists at most 3000 files). Use it to review file by file or to find the line numbers of inline review comments; use get_pull_request_diff for the whole diff as one text.',
  permissions: needs({ pull_requests: 'read' }, 'repo'),
  toolset: 'pull_requests',
  route: 'GET /repos/{owner}/{repo}/pulls/{pull_number}/files',
  item: changedFile,
  scope: pullInput,
});
