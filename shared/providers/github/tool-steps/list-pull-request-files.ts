import * as z from 'zod';
import { collectPages, githubStep, needs, pageInput, repositoryOf } from './common';
import { listed } from './outputs';
import { pullInput } from './pull-input';

const changedFile = () =>
  z.object({
    filename: z.string(),
    status: z.string().optional().describe('added, removed, modified, renamed, copied, changed or unchanged'),
    additions: z.number().int().optional(),
    deletions: z.number().int().optional(),
    changes: z.number().int().optional(),
    patch: z.string().optional().describe("The file's unified diff hunks; absent for binary files and very large diffs"),
    previous_filename: z.string().optional().describe('The name before a rename'),
    sha: z.string().nullable().optional(),
    blob_url: z.string().optional(),
  });

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
  async run(args, client) {
    const { max_items, ...params } = args;
    return collectPages(client, 'GET /repos/{owner}/{repo}/pulls/{pull_number}/files', params, max_items);
  },
});
