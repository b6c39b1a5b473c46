import * as z from 'zod';
import { githubStep, needs, positiveInt, repositoryOf } from './common';
import { account } from './outputs';
import { pullInput } from './pull-input';

export const reviewComment = () =>
  z.object({
    id: z.number().int(),
    body: z.string(),
    path: z.string().optional(),
    line: z.number().int().nullable().optional(),
    side: z.string().optional(),
    in_reply_to_id: z.number().int().optional().describe('The comment this one answers'),
    pull_request_review_id: z.number().int().nullable().optional(),
    commit_id: z.string().optional(),
    user: account().optional(),
    html_url: z.string().optional(),
    created_at: z.string().optional(),
  });

export const replyToReviewComment = githubStep({
  id: 'github.reply_to_review_comment',
  title: 'Reply to Review Comment',
  description:
    "Answers an inline review comment of a pull request in its own thread (the comment id is the review comment's, as a new_pull_request_review event or the code host's review comment list gives it; a reply to a reply goes to the same thread). For a new review with its own inline comments use create_pull_request_review; for the pull request's main conversation use create_issue_comment.",
  output: reviewComment,
  permissions: needs({ pull_requests: 'write' }, 'repo'),
  toolset: 'pull_requests',
  input: () =>
    z.strictObject({
      ...pullInput,
      comment_id: positiveInt('The id of the review comment to answer'),
      body: z.string().min(1).max(65536).describe('The reply (Markdown)'),
    }),
  repositoryOf,
  async run(args, client) {
    const { data } = await client.request('POST /repos/{owner}/{repo}/pulls/{pull_number}/comments/{comment_id}/replies', args);
    return data;
  },
});
