import * as z from 'zod';
import { githubStep, issueNumber, needs, repoInput, repositoryOf } from './common';
import { labelsAfter, withNames } from './issue-labels';

export const removeLabel = githubStep({
  id: 'github.remove_label',
  title: 'Remove Label',
  description:
    "Takes one label off an issue or pull request (the label stays in the repository). Answers the issue's remaining labels; not_found when the issue does not carry the label.",
  output: labelsAfter,
  permissions: needs({ issues: 'write' }, 'repo'),
  toolset: 'issues',
  input: () =>
    z.strictObject({
      ...repoInput,
      issue_number: issueNumber,
      name: z.string().min(1).max(100).describe('The name of the label to remove'),
    }),
  repositoryOf,
  async run(args, client) {
    const { data } = await client.request('DELETE /repos/{owner}/{repo}/issues/{issue_number}/labels/{name}', args);
    return withNames(data);
  },
});
