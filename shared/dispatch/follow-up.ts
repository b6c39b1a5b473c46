import type { AppContext } from '../ports/app-context';
import { followUpMember, reviewNeedsCheck } from '../domain/mapping/follow-ups';
import type { TriggerEvent } from '../domain/model';
import { announceCommitsBeyondPayload } from './push-commits';
import { reviewOrWrapper } from './review-check';

/**
 * What the delivery alone could not settle, finished with a read of the code host before
 * the event is delivered (shared/domain/mapping/follow-ups.ts): `handled` when nothing is
 * to be delivered (the follow-up did its work, or the event turned out not to be one),
 * `deliver` otherwise. A failure to read throws: the message is tried again with backoff.
 */
export async function runFollowUp(ctx: AppContext, event: TriggerEvent): Promise<'deliver' | 'handled'> {
  if (event.trigger === 'github.new_commit' && followUpMember in event.event) {
    await announceCommitsBeyondPayload(ctx, event);
    return 'handled';
  }
  if (event.trigger === 'github.new_pull_request_review') {
    const review = event.event.review;
    if (typeof review !== 'object' || review === null || !reviewNeedsCheck(review)) return 'deliver';
    if ((await reviewOrWrapper(ctx, event)) === 'review') return 'deliver';
    ctx.metrics.count('dispatch_review_wrapper_dropped');
    ctx.logger.info('the review wraps one inline comment made outside a review (that comment is new_comment); not announced', {
      eventId: event.id,
    });
    return 'handled';
  }
  return 'deliver';
}
