import * as z from 'zod';
import { AppError } from '../../../domain/errors';
import type { GitHubClient } from '../octokit';
import { githubStep, needs, positiveInt, repoInput, repositoryOf } from './common';
import { addedComment, commentOut, type GraphqlComment } from './discussion-outputs';

const input = () =>
  z.strictObject({
    ...repoInput,
    discussion_number: positiveInt('The number of the discussion to comment on'),
    body: z.string().min(1).max(65536).describe('The comment, in Markdown'),
    reply_to: z
      .string()
      .regex(/^[A-Za-z0-9_=-]{4,200}$/, 'must be a GraphQL node id')
      .optional()
      .describe(
        'Node id of a comment of this discussion to reply to (the `id` of a comment from Get Discussion); leave out for a top-level comment',
      ),
  });

type Args = z.output<ReturnType<typeof input>>;

const discussionQuery = `query ($owner: String!, $repo: String!, $number: Int!) {
  repository(owner: $owner, name: $repo) { discussion(number: $number) { id locked } }
}`;

const commentQuery = `query ($id: ID!) {
  node(id: $id) { ... on DiscussionComment { id discussion { id } replyTo { id } } }
}`;

const addComment = `mutation ($discussion: ID!, $body: String!, $replyTo: ID) {
  addDiscussionComment(input: {discussionId: $discussion, body: $body, replyToId: $replyTo}) {
    comment { id body url createdAt author { login } replyTo { id } }
  }
}`;

/** The discussion's node id, read through its repository: the allow-list's check holds for the mutation too. */
async function discussionId(client: GitHubClient, args: Args): Promise<string> {
  const answer = await client.graphql<{ repository: { discussion: { id: string } | null } | null }>(discussionQuery, {
    owner: args.owner,
    repo: args.repo,
    number: args.discussion_number,
  });
  const id = answer.repository?.discussion?.id;
  if (!id) throw new AppError('not_found', `Discussion #${args.discussion_number} of ${repositoryOf(args)} was not found`);
  return id;
}

/**
 * The comment replied to, which must belong to that discussion (a node id alone could name a
 * comment of any repository). The code host threads one level deep: a reply to a reply goes
 * to the comment it answers, as its own page does.
 */
async function replyTarget(client: GitHubClient, discussion: string, replyTo: string): Promise<string> {
  const answer = await client.graphql<{ node: { id?: string; discussion?: { id: string }; replyTo?: { id: string } | null } | null }>(
    commentQuery,
    { id: replyTo },
  );
  const node = answer.node;
  if (!node?.discussion || node.discussion.id !== discussion) {
    throw new AppError('invalid_input', 'reply_to is not a comment of this discussion', {
      fields: [{ field: 'input.reply_to', message: 'must be the id of a comment of this discussion' }],
    });
  }
  return node.replyTo?.id ?? replyTo;
}

export const addDiscussionComment = githubStep({
  id: 'github.add_discussion_comment',
  title: 'Add Discussion Comment',
  toolset: 'discussions',
  description:
    "Answers a discussion: adds a top-level comment, or with reply_to a reply to one of its comments (the code host's GraphQL mutation addDiscussionComment). Returns the new comment. For issues and pull requests use Create Issue Comment instead.",
  output: addedComment,
  permissions: needs({ discussions: 'write' }, 'repo'),
  input,
  repositoryOf,
  async run(args, client) {
    const discussion = await discussionId(client, args);
    const replyTo = args.reply_to === undefined ? null : await replyTarget(client, discussion, args.reply_to);
    const answer = await client.graphql<{ addDiscussionComment: { comment: GraphqlComment | null } | null }>(addComment, {
      discussion,
      body: args.body,
      replyTo,
    });
    const comment = answer.addDiscussionComment?.comment;
    if (!comment) throw new AppError('upstream_error', 'The code host answered the comment mutation without the comment');
    return { ...commentOut(comment), reply_to: comment.replyTo?.id ?? null, discussion_number: args.discussion_number };
  },
});
