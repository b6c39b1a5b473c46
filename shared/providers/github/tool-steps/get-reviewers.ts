import * as z from 'zod';
import { collectPages, githubStep, positiveInt, repoInput, repositoryOf, needs } from './common';
import { account } from './outputs';

type User = { login: string; id?: number; html_url?: string; type?: string };
type Review = { user: User | null; state: string; submitted_at?: string | null };
type Team = { slug: string; name?: string; id?: number };

export interface Reviewer {
  login: string;
  user: User;
  /** A review is requested from them now (again, if they reviewed before). */
  requested: boolean;
  /** Their standing verdict: the latest approval, change request or dismissal, else COMMENTED; null when they have not reviewed. */
  state: string | null;
  reviews: number;
  last_submitted_at: string | null;
}

/** States that decide a reviewer's verdict; a later comment does not undo an approval. */
const decisive = new Set(['APPROVED', 'CHANGES_REQUESTED', 'DISMISSED']);
/** Reviews listed at most; a pull request rarely has this many. */
const maxReviews = 1000;

/** Requested reviewers and submitted reviews as one list, one entry per person. */
export function mergeReviewers(requested: User[], reviews: Review[]): Reviewer[] {
  const byLogin = new Map<string, Reviewer>();
  const entry = (user: User) => {
    const key = user.login.toLowerCase();
    let r = byLogin.get(key);
    if (!r) {
      r = { login: user.login, user, requested: false, state: null, reviews: 0, last_submitted_at: null };
      byLogin.set(key, r);
    }
    return r;
  };
  for (const review of reviews) {
    // Pending reviews are drafts visible only to their author; they are no verdict yet.
    if (!review.user || review.state === 'PENDING') continue;
    const r = entry(review.user);
    r.reviews += 1;
    r.last_submitted_at = review.submitted_at ?? r.last_submitted_at;
    if (decisive.has(review.state) || r.state === null) r.state = review.state;
  }
  for (const user of requested) entry(user).requested = true;
  return [...byLogin.values()];
}

export const getReviewers = githubStep({
  id: 'github.get_reviewers',
  title: 'Get Reviewers',
  toolset: 'pull_requests',
  description:
    'Returns the reviewers of a pull request: everyone a review is requested from and everyone who submitted a review, merged into one list with each person\'s standing verdict (the code host lists the two separately, and drops a person from "requested" once they review).',
  output: () => {
    const logins = z.array(z.string());
    return z.object({
      reviewers: z.array(
        z.object({
          login: z.string(),
          user: account(),
          requested: z.boolean().describe('A review is requested from them now'),
          state: z.string().nullable().describe('APPROVED, CHANGES_REQUESTED, DISMISSED, COMMENTED, or null when they have not reviewed'),
          reviews: z.number().int(),
          last_submitted_at: z.string().nullable(),
        }),
      ),
      teams: z.array(z.object({ slug: z.string(), name: z.string().optional(), id: z.number().int().optional() })),
      approved: logins,
      changes_requested: logins,
      awaiting: logins.describe('Requested and not yet reviewed since'),
    });
  },
  permissions: needs({ pull_requests: 'read' }, 'repo'),
  input: () => z.strictObject({ ...repoInput, pull_number: positiveInt('The number of the pull request') }),
  repositoryOf,
  async run(args, client) {
    const [requested, reviews] = await Promise.all([
      client.request('GET /repos/{owner}/{repo}/pulls/{pull_number}/requested_reviewers', args),
      collectPages<Review>(client, 'GET /repos/{owner}/{repo}/pulls/{pull_number}/reviews', { ...args }, maxReviews),
    ]);
    const reviewers = mergeReviewers(requested.data.users as User[], reviews.items);
    const logins = (state: string) => reviewers.filter((r) => r.state === state).map((r) => r.login);
    return {
      reviewers,
      teams: requested.data.teams as Team[],
      approved: logins('APPROVED'),
      changes_requested: logins('CHANGES_REQUESTED'),
      awaiting: reviewers.filter((r) => r.requested).map((r) => r.login),
    };
  },
});
