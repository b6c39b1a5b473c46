import * as z from 'zod';
import { githubStep, issueNumber, needs, repoInput, repositoryOf } from './common';
import { issue } from './outputs';

export const getIssue = githubStep({
  id: 'github.get_issue',
  title: 'Get Issue',
  description:
    'Returns one issue: title, body, state, labels, assignees, milestone, author and how many comments it has (a pull request is an issue too: `pull_request` is then present). Read the comments themselves with list_issue_comments; to find issues use list_issues or search_issues_and_pull_requests.',
  output: issue,
  permissions: needs({ issues: 'read' }, 'repo'),
  toolset: 'issues',
  input: () => z.strictObject({ ...repoInput, issue_number: issueNumber }),
  repositoryOf,
  async run(args, client) {
    const { data } = await client.request('GET /repos/{owner}/{repo}/issues/{issue_number}', args);
    return data;
  },
});
