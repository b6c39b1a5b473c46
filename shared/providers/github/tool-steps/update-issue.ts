import * as z from 'zod';
import { defined, describeRequest, dryRun, githubStep, issueNumber, repoInput, repositoryOf, needs } from './common';
import { issue } from './outputs';
import { labelList, loginList } from './create-issue';

const changes = ['title', 'body', 'state', 'state_reason', 'milestone', 'labels', 'assignees', 'type'] as const;

const input = () =>
  z.strictObject({
    ...repoInput,
    issue_number: issueNumber,
    title: z.string().min(1).max(256).optional().describe('New title'),
    body: z.string().max(65536).optional().describe('New contents (Markdown)'),
    state: z.enum(['open', 'closed']).optional().describe('open or closed'),
    state_reason: z.enum(['completed', 'not_planned', 'duplicate', 'reopened']).optional().describe('Why the state changed'),
    milestone: z.number().int().positive().nullable().optional().describe('Milestone number, or null to remove the milestone'),
    labels: labelList.optional().describe('REPLACES all labels of the issue with this list ([] removes every label)'),
    assignees: loginList.optional().describe('REPLACES all assignees with this list ([] removes every assignee)'),
    type: z.string().min(1).max(100).nullable().optional().describe('Issue type name, or null to remove it'),
    dryRun,
  });

export const updateIssue = githubStep({
  id: 'github.update_issue',
  title: 'Update Issue',
  toolset: 'issues',
  description:
    'Updates an issue: title, body, state, milestone, labels, assignees. `labels` and `assignees` replace the whole set, they do not add to it: send the full list you want, or [] to clear it. Fields left out stay as they are; with none to change nothing is written and the issue is returned as it is.',
  output: issue,
  permissions: needs({ issues: 'write' }, 'repo'),
  input,
  destructive: true,
  repositoryOf,
  async run(args, client) {
    const { dryRun: dry, ...fields } = args;
    const params = defined(fields);
    if (changes.every((f) => params[f] === undefined)) {
      const { owner, repo, issue_number } = params;
      return (await client.request('GET /repos/{owner}/{repo}/issues/{issue_number}', { owner, repo, issue_number })).data;
    }
    if (dry) return describeRequest(client, 'PATCH /repos/{owner}/{repo}/issues/{issue_number}', params);
    const { data } = await client.request('PATCH /repos/{owner}/{repo}/issues/{issue_number}', params);
    return data;
  },
});
