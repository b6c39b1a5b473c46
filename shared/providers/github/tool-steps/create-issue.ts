import * as z from 'zod';
import { defined, githubStep, owner, repoInput, repositoryOf, needs } from './common';
import { issue } from './outputs';

export const labelList = z.array(z.string().min(1).max(100)).max(100);
export const loginList = z.array(owner).max(10);

const input = () =>
  z.strictObject({
    ...repoInput,
    title: z.string().min(1).max(256).describe('The title of the issue'),
    body: z.string().max(65536).optional().describe('The contents of the issue (Markdown)'),
    assignees: loginList.optional().describe('Logins to assign (up to 10)'),
    labels: labelList.optional().describe('Label names to apply'),
    milestone: z.number().int().positive().optional().describe('The number of the milestone to associate'),
    type: z.string().min(1).max(100).optional().describe('The issue type name, where the organization defines types'),
  });

export const createIssue = githubStep({
  id: 'github.create_issue',
  title: 'Create Issue',
  toolset: 'issues',
  description: 'Creates an issue in a repository.',
  output: issue,
  permissions: needs({ issues: 'write' }, 'repo'),
  input,
  repositoryOf,
  async run(args, client) {
    const { data } = await client.request('POST /repos/{owner}/{repo}/issues', defined(args));
    return data;
  },
});
