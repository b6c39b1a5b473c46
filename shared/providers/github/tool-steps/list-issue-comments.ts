import * as z from 'zod';
import { issueNumber, needs } from './common';
import { issueComment } from './outputs';
import { repositoryListing } from './listing-step';

export const listIssueComments = repositoryListing({
  id: 'github.list_issue_comments',
  title: 'List Issue Comments',
  description:
    "Lists the comments of an issue or of a pull request's conversation, oldest first, following pages up to `max_items`; `since` keeps only those updated after a time. Inline review comments on a pull request's lines are not among them (get_reviewers lists reviews).",
  permissions: needs({ issues: 'read' }, 'repo'),
  toolset: 'issues',
  route: 'GET /repos/{owner}/{repo}/issues/{issue_number}/comments',
  item: issueComment,
  filters: () => ({
    issue_number: issueNumber,
    since: z.iso.datetime({ offset: true }).optional().describe('Only comments updated at or after this time (ISO 8601)'),
  }),
});
