import * as z from 'zod';
import { defined, githubStep, needs, repositoryOf } from './common';
import { commitSha, pullInput } from './pull-input';

export const updatePullRequestBranch = githubStep({
  id: 'github.update_pull_request_branch',
  title: 'Update Pull Request Branch',
  description:
    'Brings a pull request\'s head branch up to date by merging the latest base branch into it (as the code host\'s "Update branch" button does). The code host does it in the background: the answer says it was accepted, and get_pull_request shows the new head.sha shortly after. Give expected_head_sha to refuse when someone pushed meanwhile.',
  output: () =>
    z.object({
      message: z.string().optional().describe('The code host\'s word, e.g. "Updating pull request branch."'),
      url: z.string().optional(),
    }),
  permissions: needs({ pull_requests: 'write', contents: 'write' }, 'repo'),
  toolset: 'pull_requests',
  input: () =>
    z.strictObject({
      ...pullInput,
      expected_head_sha: commitSha('The head commit the caller saw; the update is refused (422) when the head moved since').optional(),
    }),
  repositoryOf,
  async run(args, client) {
    const { data } = await client.request('PUT /repos/{owner}/{repo}/pulls/{pull_number}/update-branch', defined(args));
    return data;
  },
});
