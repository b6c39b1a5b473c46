import * as z from 'zod';
import { githubStep, issueNumber, needs, repoInput, repositoryOf } from './common';
import { labelList } from './create-issue';
import { labelsAfter, withNames } from './issue-labels';

export const addLabels = githubStep({
  id: 'github.add_labels',
  title: 'Add Labels',
  description:
    "Adds labels to an issue or pull request, keeping the ones it has (a label the repository lacks is created). Answers the issue's labels after the change. To take one off use remove_label; to replace the whole set use update_issue with labels.",
  output: labelsAfter,
  permissions: needs({ issues: 'write' }, 'repo'),
  toolset: 'issues',
  input: () => z.strictObject({ ...repoInput, issue_number: issueNumber, labels: labelList.min(1).describe('Label names to add') }),
  repositoryOf,
  async run(args, client) {
    const { data } = await client.request('POST /repos/{owner}/{repo}/issues/{issue_number}/labels', args);
    return withNames(data);
  },
});
