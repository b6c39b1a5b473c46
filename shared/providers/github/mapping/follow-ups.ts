import * as z from 'zod';

/**
 * Occurrences the code host's delivery cannot settle alone, finished after the intake has
 * answered by a read of the code host (shared/providers/github/follow-ups/ runs them, with the
 * connection's token and within its rate budget; the intake must answer within 10 s):
 *
 * - a `commented` review with no summary: a review of inline comments only, or the wrapper
 *   the code host puts around one standalone comment (`reviewNeedsCheck`);
 * - a push whose payload was cut at `pushPayloadCommitLimit` commits: the commits beyond it
 *   are read from the compare API (`pushCommitsFollowUp`, carried in the event as
 *   `follow_up`; such an event is never sent to the agent runtime).
 */

/** The code host's push payload carries at most this many commits; the rest are read through its Commits API. */
export const pushPayloadCommitLimit = 2048;

/** The member of a follow-up event's `event` object that says what is left to do. */
export const followUpMember = 'follow_up';

export const pushCommitsFollowUp = z.object({
  kind: z.literal('push_commits'),
  /** `owner/name`. */
  repository: z.string().min(1),
  /** The compare's base (the push's `before`, or the default branch for a new branch) and head (`after`). */
  base: z.string().min(1),
  head: z.string().min(1),
  /** The next compare page to read (100 commits a page, oldest first). */
  page: z.number().int().min(1),
  /** SHAs the payload carried: already announced from the delivery. */
  inPayload: z.array(z.string()),
  /** What every commit's event carries besides the commit, as the delivery's new_commit events do. */
  push: z.record(z.string(), z.unknown()),
});
export type PushCommitsFollowUp = z.output<typeof pushCommitsFollowUp>;

/** A `commented` review without a summary: real when it has inline comments of its own (read back), a wrapper otherwise. */
export function reviewNeedsCheck(review: { state?: unknown; body?: unknown }): boolean {
  return typeof review.state === 'string' && review.state.toLowerCase() === 'commented' && String(review.body ?? '').trim() === '';
}
