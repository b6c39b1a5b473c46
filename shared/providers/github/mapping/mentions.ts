import * as z from 'zod';
import { issueCommentPayload, reviewCommentPayload } from './comments';
import { discussionCommentPayload, discussionPayload } from './discussions';
import { newlyMentions } from './find-mention';
import { baseEvent, baseFacts, compact, labelNames, occurrence, parse, type Envelope, type Mapper, type MapperTable } from './mapper';
import { bodyChangesSchema, commentSchema, envelopeSchema, issueSchema, pullRequestSchema, userSchema } from './schemas';

/**
 * new_mention: the connected account @-mentioned in the body of an issue, a pull request,
 * a review, a comment (issue, pull request, diff, commit) or a discussion and its comments.
 *
 * - Only new mentions: on created/opened/submitted; on `edited` only when the body changed
 *   (`changes.body.from`) and the old body did not already mention the account.
 * - Not when the account mentions itself (the code host does not notify that either).
 * - Titles are not read: the code host does not notify mentions in titles.
 */

interface Source<S extends z.ZodType> {
  schema: S;
  body: (p: z.output<S>) => string | null | undefined;
  /** The event's subject objects (issue, comment, ...). */
  subject: (p: z.output<S>) => Record<string, unknown>;
  labels?: (p: z.output<S>) => string[] | undefined;
}

const withChanges = { changes: bodyChangesSchema };

function mentionMapper<S extends z.ZodType>(source: Source<S>): Mapper {
  return (payload, ctx) => {
    const p = parse(source.schema, payload);
    if (p === undefined) return [];
    const env = p as Envelope & { changes?: z.output<typeof bodyChangesSchema> };
    if (env.sender && env.sender.login.toLowerCase() === ctx.accountLogin.toLowerCase()) return [];
    let before: string | null | undefined;
    if (ctx.action === 'edited') {
      if (!env.changes?.body) return [];
      before = env.changes.body.from;
    }
    if (!newlyMentions(source.body(p), before, ctx.accountLogin)) return [];
    const event = { ...baseEvent(env), ...source.subject(p), mentioned: { login: ctx.accountLogin } };
    return [occurrence('new_mention', event, compact({ ...baseFacts(env), labels: source.labels?.(p) }))];
  };
}

const issue = mentionMapper({
  schema: envelopeSchema.extend({ issue: issueSchema, ...withChanges }),
  body: (p) => p.issue.body,
  subject: (p) => ({ issue: p.issue }),
  labels: (p) => labelNames(p.issue.labels),
});

const pullRequest = mentionMapper({
  schema: envelopeSchema.extend({ pull_request: pullRequestSchema, ...withChanges }),
  body: (p) => p.pull_request.body,
  subject: (p) => ({ pull_request: p.pull_request }),
  labels: (p) => labelNames(p.pull_request.labels),
});

const review = mentionMapper({
  schema: envelopeSchema.extend({
    pull_request: pullRequestSchema,
    review: z.object({
      id: z.number(),
      body: z.string().nullish(),
      state: z.string().nullish(),
      html_url: z.string().nullish(),
      user: userSchema.nullish(),
    }),
    ...withChanges,
  }),
  body: (p) => p.review.body,
  subject: (p) => ({ pull_request: p.pull_request, review: p.review }),
  labels: (p) => labelNames(p.pull_request.labels),
});

const issueComment = mentionMapper({
  schema: issueCommentPayload.extend(withChanges),
  body: (p) => p.comment.body,
  subject: (p) => ({ issue: p.issue, comment: p.comment }),
  labels: (p) => labelNames(p.issue.labels),
});

const reviewComment = mentionMapper({
  schema: reviewCommentPayload.extend(withChanges),
  body: (p) => p.comment.body,
  subject: (p) => ({ pull_request: p.pull_request, comment: p.comment }),
  labels: (p) => labelNames(p.pull_request.labels),
});

const commitComment = mentionMapper({
  schema: envelopeSchema.extend({
    comment: commentSchema.extend({ commit_id: z.string(), path: z.string().nullish(), line: z.number().nullish() }),
  }),
  body: (p) => p.comment.body,
  subject: (p) => ({ comment: p.comment }),
});

const discussion = mentionMapper({
  schema: discussionPayload.extend(withChanges),
  body: (p) => p.discussion.body,
  subject: (p) => ({ discussion: p.discussion }),
  labels: (p) => labelNames(p.discussion.labels),
});

const discussionComment = mentionMapper({
  schema: discussionCommentPayload.extend(withChanges),
  body: (p) => p.comment.body,
  subject: (p) => ({ discussion: p.discussion, comment: p.comment }),
  labels: (p) => labelNames(p.discussion.labels),
});

export const mentionMappers: MapperTable = {
  'issues.opened': [issue],
  'issues.edited': [issue],
  'pull_request.opened': [pullRequest],
  'pull_request.edited': [pullRequest],
  'pull_request_review.submitted': [review],
  'pull_request_review.edited': [review],
  'issue_comment.created': [issueComment],
  'issue_comment.edited': [issueComment],
  'pull_request_review_comment.created': [reviewComment],
  'pull_request_review_comment.edited': [reviewComment],
  'commit_comment.created': [commitComment],
  'discussion.created': [discussion],
  'discussion.edited': [discussion],
  'discussion_comment.created': [discussionComment],
  'discussion_comment.edited': [discussionComment],
};
