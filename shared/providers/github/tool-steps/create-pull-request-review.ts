import * as z from 'zod';
import { defined, githubStep, needs, positiveInt, repoPath, repositoryOf } from './common';
import { account } from './outputs';
import { commitSha, pullInput } from './pull-input';

const side = z.enum(['LEFT', 'RIGHT']);

/** An inline comment, placed by line numbers as the code host prefers (`position` is its older way). */
const inlineComment = z
  .strictObject({
    path: repoPath.describe('The file the comment is on, as list_pull_request_files names it'),
    body: z.string().min(1).max(65536).describe('The comment (Markdown)'),
    line: positiveInt('The line of the diff the comment is on (the last line of a range)').optional(),
    side: side.optional().describe('RIGHT (default): the new version of the line; LEFT: the old one, for a deleted line'),
    start_line: positiveInt('The first line of a multi-line range').optional(),
    start_side: side.optional().describe('The side of start_line'),
    position: positiveInt("The line's position in the file's diff hunk (the older way; prefer line)").optional(),
  })
  .superRefine((c, ctx) => {
    if (c.line === undefined && c.position === undefined)
      ctx.addIssue({ code: 'custom', path: ['line'], message: 'give line (or position)' });
    if (c.start_line !== undefined && c.line !== undefined && c.start_line > c.line)
      ctx.addIssue({ code: 'custom', path: ['start_line'], message: 'must not be after line' });
  });

const input = () =>
  z
    .strictObject({
      ...pullInput,
      event: z
        .enum(['APPROVE', 'REQUEST_CHANGES', 'COMMENT'])
        .describe('APPROVE, REQUEST_CHANGES (needs body) or COMMENT (needs body or comments)'),
      body: z.string().max(65536).optional().describe('The review text (Markdown)'),
      commit_id: commitSha(
        'The commit the review is about (default: the latest); a review of an older head refers to that commit',
      ).optional(),
      comments: z.array(inlineComment).max(100).optional().describe('Inline comments on lines of the diff'),
    })
    .superRefine((v, ctx) => {
      if (v.event === 'REQUEST_CHANGES' && !v.body)
        ctx.addIssue({ code: 'custom', path: ['body'], message: 'REQUEST_CHANGES needs a body saying what to change' });
      if (v.event === 'COMMENT' && !v.body && !v.comments?.length)
        ctx.addIssue({ code: 'custom', path: ['body'], message: 'COMMENT needs a body or inline comments' });
    });

export const pullRequestReview = () =>
  z.object({
    id: z.number().int(),
    state: z.string().describe('APPROVED, CHANGES_REQUESTED or COMMENTED'),
    body: z.string().optional(),
    user: account().nullable().optional(),
    html_url: z.string().optional(),
    commit_id: z.string().nullable().optional(),
    submitted_at: z.string().optional(),
    author_association: z.string().optional(),
  });

export const createPullRequestReview = githubStep({
  id: 'github.create_pull_request_review',
  title: 'Create Pull Request Review',
  description:
    'Submits a review of a pull request: APPROVE, REQUEST_CHANGES or COMMENT, with a summary and optional inline comments on lines of the diff (path and line as list_pull_request_files shows them). The review is submitted at once, not left pending. To answer one existing inline comment use reply_to_review_comment; for a plain conversation comment use create_issue_comment with the pull request number.',
  output: pullRequestReview,
  permissions: needs({ pull_requests: 'write' }, 'repo'),
  toolset: 'pull_requests',
  input,
  repositoryOf,
  async run(args, client) {
    const { comments, ...rest } = args;
    const { data } = await client.request(
      'POST /repos/{owner}/{repo}/pulls/{pull_number}/reviews',
      defined({ ...rest, comments: comments?.map((c) => defined(c)) }),
    );
    return data;
  },
});
