import * as z from 'zod';
import { githubStep, issueNumber, repoInput, repositoryOf, needs } from './common';
import { issueComment } from './outputs';

export const createIssueComment = githubStep({
  id: 'github.create_issue_comment',
  title: 'Create Issue Comment',
  toolset: 'issues',
  description: 'Comments on an issue or a pull request (pull requests are issues for comments).',
  output: issueComment,
  permissions: needs({ issues: 'write' }, 'repo'),
  input: () =>
    z.strictObject({
      ...repoInput,
      issue_number: issueNumber,
      body: z.string().min(1).max(65536).describe('The comment text (Markdown)'),
    }),
  repositoryOf,
  async run(args, client) {
    const { data } = await client.request('POST /repos/{owner}/{repo}/issues/{issue_number}/comments', args);
    return data;
  },
});
