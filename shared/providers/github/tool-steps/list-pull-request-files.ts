import * as z from 'zod';
import { githubStep, needs, pageInput, pagesOf, repositoryOf } from './common';
import { changedFile, listed } from './outputs';
import { pullInput } from './pull-input';

export const listPullRequestFiles = githubStep({
  id: 'github.list_pull_request_files',
  title: 'List Pull Request Files',
  description:
    'Lists the files a pull request changes, each with its status (added, modified, removed, renamed), line counts and its own patch, following pages up to `max_items` (the code host lists at most 3000 files). Use it to review file by file or to find the line numbers of inline review comments; use get_pull_request_diff for the whole diff as one text.',
  output: () => listed(changedFile()),
  permissions: needs({ pull_requests: 'read' }, 'repo'),
  toolset: 'pull_requests',
  input: () => z.strictObject({ ...pullInput, ...pageInput }),
  repositoryOf,
  run: pagesOf('GET /repos/{owner}/{repo}/pulls/{pull_number}/files'),
});
