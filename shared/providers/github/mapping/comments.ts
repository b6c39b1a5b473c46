import * as z from 'zod';
import { baseEvent, baseFacts, labelNames, occurrence, parse, type Mapper, type MapperTable } from './mapper';
import { commentSchema, envelopeSchema, issueSchema, pullRequestSchema } from './schemas';

/**
 * Comments family: new_comment = a comment added to an issue or a pull request, in the
 * conversation (`issue_comment`, which covers both) or on the diff
 * (`pull_request_review_comment`: to a user it is a comment on the pull request too).
 * A review's own body is new_pull_request_review, not a comment; commit comments are on
 * no issue or pull request.
 */

export const issueCommentPayload = envelopeSchema.extend({ issue: issueSchema, comment: commentSchema });

export const reviewCommentPayload = envelopeSchema.extend({
  pull_request: pullRequestSchema,
  comment: commentSchema.extend({
    path: z.string().nullish(),
    line: z.number().nullish(),
    commit_id: z.string().nullish(),
    diff_hunk: z.string().nullish(),
    pull_request_review_id: z.number().nullish(),
    in_reply_to_id: z.number().nullish(),
  }),
});

const issueComment: Mapper = (payload) => {
  const p = parse(issueCommentPayload, payload);
  if (!p) return [];
  const facts = { ...baseFacts(p), labels: labelNames(p.issue.labels) ?? [] };
  return [occurrence('new_comment', { ...baseEvent(p), issue: p.issue, comment: p.comment }, facts)];
};

const reviewComment: Mapper = (payload) => {
  const p = parse(reviewCommentPayload, payload);
  if (!p) return [];
  const facts = { ...baseFacts(p), branch: p.pull_request.base.ref, labels: labelNames(p.pull_request.labels) ?? [] };
  return [occurrence('new_comment', { ...baseEvent(p), pull_request: p.pull_request, comment: p.comment }, facts)];
};

export const commentMappers: MapperTable = {
  'issue_comment.created': [issueComment],
  'pull_request_review_comment.created': [reviewComment],
};
