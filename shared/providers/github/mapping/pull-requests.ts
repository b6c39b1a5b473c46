import * as z from 'zod';
import {
  baseEvent,
  baseFacts,
  compact,
  labelNames,
  occurrence,
  openerAddition,
  parse,
  partOfOpening,
  type Mapper,
  type MapperTable,
  type PullRequestAction,
} from './mapper';
import { envelopeSchema, labelSchema, pullRequestSchema, userSchema } from './schemas';

/**
 * Pull request family: new / updated pull request, review request, review submitted.
 *
 * Choices (docs/triggers.md):
 * - new_pull_request = opened while not a draft, or ready_for_review (the spec: "opened or
 *   ready for review"). A draft that is opened is not yet up for review: it fires
 *   updated_pull_request only, and new_pull_request later when it is marked ready.
 * - updated_pull_request = the pull request's content or state changed: edited, new commits
 *   (synchronize), closed/merged, reopened, draft <-> ready, labels, assignees, requested
 *   reviewers, milestone, lock. Not auto-merge or merge-queue bookkeeping.
 * - Facts: `branch` is the base branch (a branches filter reads "pull requests into main").
 * - One opening, one event: labels, assignees, reviewers and a milestone given at opening
 *   (in the same second, or by the opener within `openerAdditionWindowMs`: the REST API, the
 *   CLI and bots add them in calls of their own after creating) fire no updated_pull_request.
 *   They fire new_pull_request again under the opening's own dedupeKey, carrying the pull
 *   request as it now is: dispatch's claim on the event id lets one copy per subscription
 *   through, and a labels filter that only the added labels satisfy still sees the opening.
 */

const prPayload = envelopeSchema.extend({
  number: z.number().nullish(),
  pull_request: pullRequestSchema,
  label: labelSchema.nullish(),
  assignee: userSchema.nullish(),
  requested_reviewer: userSchema.nullish(),
  requested_team: z.object({ name: z.string(), slug: z.string().nullish() }).nullish(),
  before: z.string().nullish(),
  after: z.string().nullish(),
  changes: z
    .object({ title: z.object({ from: z.string().nullish() }).nullish(), body: z.object({ from: z.string().nullish() }).nullish() })
    .nullish(),
});
type PrPayload = z.output<typeof prPayload>;

function prEvent(p: PrPayload): Record<string, unknown> {
  return compact({
    ...baseEvent(p),
    pull_request: p.pull_request,
    label: p.label,
    assignee: p.assignee,
    requested_reviewer: p.requested_reviewer,
    requested_team: p.requested_team,
    before: p.before,
    after: p.after,
    changes: p.changes,
  });
}

function prFacts(p: PrPayload) {
  return { ...baseFacts(p), branch: p.pull_request.base.ref, labels: labelNames(p.pull_request.labels) ?? [] };
}

function fire(trigger: 'new_pull_request' | 'updated_pull_request' | 'new_review_request'): Mapper {
  return (payload) => {
    const p = parse(prPayload, payload);
    return p ? [occurrence(trigger, prEvent(p), prFacts(p))] : [];
  };
}

/** The same for every delivery of one pull request's opening, whatever order they arrive in. */
function openingKey(p: PrPayload): string {
  return `pull_request_opened:${p.repository.full_name}#${p.pull_request.number}`;
}

function atOpening(p: PrPayload): boolean {
  return partOfOpening(p.pull_request) || openerAddition(p.pull_request, p.sender);
}

/** Labels, assignees, reviewers and a milestone given when the pull request was opened are the opening, not an update. */
const updatedAfterOpening: Mapper = (payload) => {
  const p = parse(prPayload, payload);
  if (!p) return [];
  if (!atOpening(p)) return [occurrence('updated_pull_request', prEvent(p), prFacts(p))];
  return p.pull_request.draft ? [] : [occurrence('new_pull_request', prEvent(p), prFacts(p), openingKey(p))];
};

const opened: Mapper = (payload) => {
  const p = parse(prPayload, payload);
  if (!p) return [];
  if (p.pull_request.draft) return [occurrence('updated_pull_request', prEvent(p), prFacts(p))];
  return [occurrence('new_pull_request', prEvent(p), prFacts(p), openingKey(p))];
};

const updatedActions: PullRequestAction[] = [
  'edited',
  'closed',
  'reopened',
  'synchronize',
  'converted_to_draft',
  'ready_for_review',
  'labeled',
  'unlabeled',
  'assigned',
  'unassigned',
  'review_requested',
  'review_request_removed',
  'milestoned',
  'demilestoned',
  'locked',
  'unlocked',
];

const reviewPayload = envelopeSchema.extend({
  pull_request: pullRequestSchema,
  review: z.object({
    id: z.number(),
    body: z.string().nullish(),
    state: z.string(),
    html_url: z.string().nullish(),
    user: userSchema.nullish(),
    commit_id: z.string().nullish(),
    submitted_at: z.string().nullish(),
  }),
});

/**
 * Every submitted review is announced, `commented` ones without a summary included: a review
 * of inline comments only is a review a person made. The code host also wraps each inline
 * comment (or reply) made outside a review in a `commented` review with no body; the delivery
 * alone cannot tell the two apart, so such a review is read back once after the intake
 * answered (`reviewNeedsCheck`, shared/providers/github/follow-ups/review-check.ts) and the wrapper is dropped
 * there (its comment is new_comment).
 */
const reviewSubmitted: Mapper = (payload) => {
  const p = parse(reviewPayload, payload);
  if (!p) return [];
  const facts = { ...baseFacts(p), branch: p.pull_request.base.ref, labels: labelNames(p.pull_request.labels) ?? [] };
  return [occurrence('new_pull_request_review', { ...baseEvent(p), pull_request: p.pull_request, review: p.review }, facts)];
};

const table: MapperTable = {};
const openingActions: PullRequestAction[] = ['labeled', 'assigned', 'review_requested', 'milestoned'];
for (const action of updatedActions)
  table[`pull_request.${action}`] = [openingActions.includes(action) ? updatedAfterOpening : fire('updated_pull_request')];
table['pull_request.opened'] = [opened];
table['pull_request.ready_for_review'] = [fire('new_pull_request'), fire('updated_pull_request')];
table['pull_request.review_requested'] = [updatedAfterOpening, fire('new_review_request')];
table['pull_request_review.submitted'] = [reviewSubmitted];

export const pullRequestMappers: MapperTable = table;
