import * as z from 'zod';

/**
 * Discussions as the steps hand them on. Discussions exist only in the code host's GraphQL
 * API; its camelCase fields are renamed to the REST API's snake_case so that a discussion
 * reads like the issues and pull requests beside it.
 */

export interface GraphqlComment {
  id: string;
  body: string;
  url: string;
  createdAt: string;
  isAnswer?: boolean | null;
  author: { login: string } | null;
  replyTo?: { id: string } | null;
  replies?: { totalCount: number; nodes: (GraphqlComment | null)[] } | null;
}

const author = () => z.string().nullable().describe('Login of the author; null for a deleted account');

const commentFields = () => ({
  id: z.string().describe('Node id of the comment: give it as reply_to to answer it'),
  body: z.string(),
  url: z.string(),
  created_at: z.string().describe('Created (ISO 8601)'),
  author: author(),
});

export const discussionComment = () =>
  z.object({
    ...commentFields(),
    is_answer: z.boolean().optional().describe('Marked as the answer (question categories)'),
    replies: z.array(z.object(commentFields())).describe('The first replies to the comment, oldest first'),
    replies_total: z.number().int().describe('How many replies the comment has; only the first are listed'),
  });

export const addedComment = () =>
  z.object({
    ...commentFields(),
    reply_to: z.string().nullable().describe('Node id of the comment this one replies to; null for a top-level comment'),
    discussion_number: z.number().int(),
  });

/** A GraphQL comment in the step's shape. */
export function commentOut(c: GraphqlComment) {
  return {
    id: c.id,
    body: c.body,
    url: c.url,
    created_at: c.createdAt,
    author: c.author?.login ?? null,
  };
}

/** A top-level comment with the replies the query asked for. */
export function threadOut(c: GraphqlComment) {
  const replies = (c.replies?.nodes ?? []).filter((r): r is GraphqlComment => r !== null);
  return {
    ...commentOut(c),
    ...(typeof c.isAnswer === 'boolean' ? { is_answer: c.isAnswer } : {}),
    replies: replies.map(commentOut),
    replies_total: c.replies?.totalCount ?? replies.length,
  };
}
