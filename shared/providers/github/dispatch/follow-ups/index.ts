import type { FollowUpHandler } from '../../../../dispatch/provider-work';
import { pushCommits } from './push-commits';
import { reviewCheck } from './review-check';

/**
 * The code host's follow-ups: what its delivery alone could not settle, finished with a read
 * of the code host before the event is delivered (shared/providers/github/mapping/follow-ups.ts says
 * which events carry one): the commits beyond a cut push payload, and whether a comment-only
 * review is a review or the wrapper of one standalone comment.
 */
export const githubFollowUps: readonly FollowUpHandler[] = [pushCommits, reviewCheck];
