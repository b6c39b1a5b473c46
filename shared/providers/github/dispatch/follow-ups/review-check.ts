import * as z from 'zod';
import type { AppContext } from '../../../../ports/app-context';
import type { TriggerEvent } from '../../../../domain/model';
import { reviewNeedsCheck } from '../../mapping/follow-ups';
import type { FollowUpHandler } from '../../../../dispatch/provider-work';
import { repoPath } from '../../webhooks/rest-call';
import { readAsConnection } from './code-host-read';

/**
 * A `commented` review with no summary is either a review of inline comments only ("Submit
 * review -> Comment" with an empty summary: a review a person made) or the wrapper the code
 * host makes around one inline comment, or reply, written outside a review (that comment is
 * new_comment). The review's comments are read back once
 * (`GET /repos/{o}/{r}/pulls/{n}/reviews/{id}/comments`):
 * - two or more: a review;
 * - one: a wrapper when the comment was written when the review was submitted (a standalone
 *   comment and its wrapper are made in one go: the published example is 1 s apart), a
 *   review when it was written earlier (a review's comments are drafted before it is submitted);
 * - none: nothing to announce (the comment was deleted).
 * When the read cannot be made or is refused (connection gone, no access, rate limit) the
 * review is announced: a wrapper announced costs less than a review lost.
 */

/** A standalone comment and its wrapper carry the same second or the next; a drafted comment precedes the submit by far more. */
const sameMomentMs = 2000;

const checked = z.object({
  repository: z.object({ full_name: z.string() }),
  pull_request: z.object({ number: z.number() }),
  review: z.object({ id: z.number(), submitted_at: z.string().nullish() }),
});

const comments = z.array(z.object({ id: z.number(), created_at: z.string().nullish() }).passthrough());

export type ReviewVerdict = 'review' | 'wrapper';

export async function reviewOrWrapper(ctx: AppContext, event: TriggerEvent): Promise<ReviewVerdict> {
  const p = checked.safeParse(event.event);
  if (!p.success) return 'review';
  const { repository, pull_request, review } = p.data;
  const path = `${repoPath(repository.full_name)}/pulls/${pull_request.number}/reviews/${review.id}/comments?per_page=100`;
  const read = await readAsConnection(ctx, event.connectionId, path);
  const listed = read?.status === 200 ? comments.safeParse(read.body) : undefined;
  if (!listed?.success) {
    ctx.metrics.count('dispatch_review_check_failed');
    ctx.logger.warn("a comment-only review's comments could not be read; announced as a review", {
      eventId: event.id,
      status: read?.status,
    });
    return 'review';
  }
  const found = listed.data;
  if (found.length >= 2) return 'review';
  const [only] = found;
  if (!only) return 'wrapper';
  const written = Date.parse(only.created_at ?? '');
  const submitted = Date.parse(review.submitted_at ?? '');
  if (Number.isNaN(written) || Number.isNaN(submitted)) return 'review';
  return Math.abs(submitted - written) <= sameMomentMs ? 'wrapper' : 'review';
}

/** A comment-only review's check: a wrapper is handled (not announced), a review delivered. */
export const reviewCheck: FollowUpHandler = {
  kind: 'review_check',
  applies(event) {
    if (event.trigger !== 'github.new_pull_request_review') return false;
    const review = event.event.review;
    return typeof review === 'object' && review !== null && reviewNeedsCheck(review);
  },
  async run(ctx, event) {
    if ((await reviewOrWrapper(ctx, event)) === 'review') return 'deliver';
    ctx.metrics.count('dispatch_review_wrapper_dropped');
    ctx.logger.info('the review wraps one inline comment made outside a review (that comment is new_comment); not announced', {
      eventId: event.id,
    });
    return 'handled';
  },
};
