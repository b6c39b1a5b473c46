import * as z from 'zod';
import { githubStep, issueNumber, repoInput, repositoryOf, needs } from './common';
import { account } from './outputs';

export const getIssueAssignees = githubStep({
  id: 'github.get_issue_assignees',
  title: 'Get Issue Assignees',
  toolset: 'issues',
  description: 'Returns the people assigned to an issue or pull request.',
  output: () =>
    z.object({
      issue_number: z.number().int(),
      assignees: z.array(account()),
      logins: z.array(z.string()),
    }),
  permissions: needs({ issues: 'read' }, 'repo'),
  input: () => z.strictObject({ ...repoInput, issue_number: issueNumber }),
  repositoryOf,
  async run(args, client) {
    const { data } = await client.request('GET /repos/{owner}/{repo}/issues/{issue_number}', args);
    const assignees = data.assignees ?? (data.assignee ? [data.assignee] : []);
    return { issue_number: data.number, assignees, logins: assignees.map((a) => a.login) };
  },
});
