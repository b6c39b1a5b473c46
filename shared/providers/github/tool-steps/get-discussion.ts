import * as z from 'zod';
import { AppError } from '../../../domain/errors';
import { githubStep, needs, positiveInt, repoInput, repositoryOf } from './common';
import { discussionComment, type GraphqlComment, threadOut } from './discussion-outputs';

/** Comments per answer at most, and replies per comment: one GraphQL query, bounded. */
const maxComments = 50;
const repliesPerComment = 10;

const input = () =>
  z.strictObject({
    ...repoInput,
    discussion_number: positiveInt('The number that identifies the discussion'),
    comments: z
      .number()
      .int()
      .min(0)
      .max(maxComments)
      .default(20)
      .describe(
        `How many top-level comments to return, oldest first (default 20, at most ${maxComments}), each with its first ${repliesPerComment} replies`,
      ),
    after: z.string().min(1).max(200).optional().describe('Read the comments after this cursor: the `next_cursor` of an earlier answer'),
  });

// The discussion's repository is named in the query itself: nothing outside it is read.
const query = `query ($owner: String!, $repo: String!, $number: Int!, $first: Int!, $after: String, $replies: Int!) {
  repository(owner: $owner, name: $repo) {
    discussion(number: $number) {
      id number title body url createdAt updatedAt closed locked isAnswered
      author { login }
      category { name }
      comments(first: $first, after: $after) {
        totalCount
        pageInfo { hasNextPage endCursor }
        nodes {
          id body url createdAt isAnswer author { login }
          replies(first: $replies) { totalCount nodes { id body url createdAt author { login } } }
        }
      }
    }
  }
}`;

interface Answer {
  repository: {
    discussion: {
      id: string;
      number: number;
      title: string;
      body: string;
      url: string;
      createdAt: string;
      updatedAt: string;
      closed: boolean;
      locked: boolean;
      isAnswered: boolean | null;
      author: { login: string } | null;
      category: { name: string } | null;
      comments: {
        totalCount: number;
        pageInfo: { hasNextPage: boolean; endCursor: string | null };
        nodes: (GraphqlComment | null)[];
      };
    } | null;
  } | null;
}

export const getDiscussion = githubStep({
  id: 'github.get_discussion',
  title: 'Get Discussion',
  toolset: 'discussions',
  description: `Returns a discussion of a repository (title, body, category, author, whether it is answered) with its comments oldest first, each with its first ${repliesPerComment} replies; \`next_cursor\` reads on. Discussions exist only in the code host's GraphQL API, so issue and pull request tools cannot read them. Use the comment ids it returns as reply_to of Add Discussion Comment.`,
  output: () =>
    z.object({
      discussion: z.object({
        id: z.string().describe('Node id of the discussion'),
        number: z.number().int(),
        title: z.string(),
        body: z.string(),
        url: z.string(),
        category: z.string().nullable(),
        author: z.string().nullable(),
        closed: z.boolean(),
        locked: z.boolean(),
        is_answered: z.boolean().nullable().describe('Null outside question categories'),
        created_at: z.string(),
        updated_at: z.string(),
      }),
      comments: z.array(discussionComment()),
      comments_total: z.number().int().describe('Top-level comments in all'),
      next_cursor: z.string().nullable().describe('Give as `after` to read the next comments; null when none are left'),
    }),
  permissions: needs({ discussions: 'read' }, 'repo'),
  input,
  repositoryOf,
  async run(args, client) {
    const answer = await client.graphql<Answer>(query, {
      owner: args.owner,
      repo: args.repo,
      number: args.discussion_number,
      first: args.comments,
      after: args.after ?? null,
      replies: repliesPerComment,
    });
    const d = answer.repository?.discussion;
    if (!d) throw new AppError('not_found', `Discussion #${args.discussion_number} of ${repositoryOf(args)} was not found`);
    const comments = d.comments.nodes.filter((c): c is GraphqlComment => c !== null);
    return {
      discussion: {
        id: d.id,
        number: d.number,
        title: d.title,
        body: d.body,
        url: d.url,
        category: d.category?.name ?? null,
        author: d.author?.login ?? null,
        closed: d.closed,
        locked: d.locked,
        is_answered: d.isAnswered,
        created_at: d.createdAt,
        updated_at: d.updatedAt,
      },
      comments: comments.map(threadOut),
      comments_total: d.comments.totalCount,
      next_cursor: d.comments.pageInfo.hasNextPage ? d.comments.pageInfo.endCursor : null,
    };
  },
});
