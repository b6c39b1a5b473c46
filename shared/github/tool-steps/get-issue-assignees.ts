import * as z from 'zod';
import { githubStep, issueNumber, repoInput, repositoryOf } from './common';

export const getIssueAssignees = githubStep({
  id: 'github.get_issue_assignees',
  title: 'Get Issue Assignees',
  description: 'Returns the people assigned to an issue or pull request.',
  outputDescription: '{issue_number, assignees: [{login, id, html_url, ...}], logins: ["login", ...]}.',
  input: () => z.strictObject({ ...repoInput, issue_number: issueNumber }),
  repositoryOf,
  async run(args, client) {
    const { data } = await client.request('GET /repos/{owner}/{repo}/issues/{issue_number}', args);
    const assignees = data.assignees ?? (data.assignee ? [data.assignee] : []);
    return { issue_number: data.number, assignees, logins: assignees.map((a) => a.login) };
  },
});
