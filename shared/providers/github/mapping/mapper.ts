import type { z } from 'zod';
import type { TriggerName } from '../../../domain/triggers';
import type { EventFacts, MappedEvent } from '../../../domain/mapping/types';
import type { organizationSchema, repositorySchema, userSchema } from './schemas';

/** What a mapper knows besides the body. */
export interface MapContext {
  /** `X-GitHub-Event`. */
  event: string;
  /** The body's `action`, when it has one. */
  action?: string;
  /** Login of the connected account (mentions, self-mention rule). */
  accountLogin: string;
}

/** One small pure function: a delivery body to the trigger occurrences it means (often none). */
export type Mapper = (payload: unknown, ctx: MapContext) => MappedEvent[];

/**
 * Every `"<event>.<action>"` (or bare `"<event>"`) the mapping reads. A typo in a family's
 * table is a compile error instead of a trigger that silently never fires.
 */
export type DeliveryKey =
  | 'create'
  | 'push'
  | 'fork'
  | 'star.created'
  | 'repository.created'
  | 'member.added'
  | 'issues.opened'
  | 'issues.edited'
  | 'issues.closed'
  | 'issues.reopened'
  | 'issues.labeled'
  | 'issues.unlabeled'
  | 'issues.assigned'
  | 'issues.unassigned'
  | `pull_request.${PullRequestAction}`
  | 'pull_request_review.submitted'
  | 'pull_request_review.edited'
  | 'issue_comment.created'
  | 'issue_comment.edited'
  | 'pull_request_review_comment.created'
  | 'pull_request_review_comment.edited'
  | 'commit_comment.created'
  | 'workflow_run.completed'
  | 'workflow_job.completed'
  | 'projects_v2_item.edited'
  | 'project_card.created'
  | 'project_card.moved'
  | 'release.published'
  | 'discussion.created'
  | 'discussion.edited'
  | 'discussion_comment.created'
  | 'discussion_comment.edited';

export type PullRequestAction =
  | 'opened'
  | 'edited'
  | 'closed'
  | 'reopened'
  | 'synchronize'
  | 'converted_to_draft'
  | 'ready_for_review'
  | 'labeled'
  | 'unlabeled'
  | 'assigned'
  | 'unassigned'
  | 'review_requested'
  | 'review_request_removed'
  | 'milestoned'
  | 'demilestoned'
  | 'locked'
  | 'unlocked';

/** A family's part of the table. */
export type MapperTable = Partial<Record<DeliveryKey, Mapper[]>>;

/** The parsed body, or undefined when its shape does not fit (a lying event header, a truncated body). */
export function parse<S extends z.ZodType>(schema: S, payload: unknown): z.output<S> | undefined {
  const result = schema.safeParse(payload);
  return result.success ? result.data : undefined;
}

/** What every delivery may carry around its subject (repository, organization, sender). */
export interface Envelope {
  action?: string | undefined;
  repository?: z.output<typeof repositorySchema> | null | undefined;
  organization?: z.output<typeof organizationSchema> | null | undefined;
  sender?: z.output<typeof userSchema> | null | undefined;
}

/** The part of every `event` object: action, repository, organization, sender (compact). */
export function baseEvent(env: Envelope): Record<string, unknown> {
  return compact({
    action: env.action,
    repository: env.repository ?? undefined,
    organization: env.organization ?? undefined,
    sender: env.sender ?? undefined,
  });
}

/** Repository and organization facts every filter starts from. */
export function baseFacts(env: Envelope): EventFacts {
  return compact({
    repository: env.repository?.full_name,
    repositoryId: env.repository?.id ?? undefined,
    organization: env.organization?.login ?? env.repository?.owner?.login,
    organizationId: env.organization?.id ?? undefined,
  });
}

/** One occurrence. `dedupeKey` defaults to the delivery (the dispatcher adds the delivery id). */
export function occurrence(trigger: TriggerName, event: Record<string, unknown>, facts: EventFacts, dedupeKey = 'delivery'): MappedEvent {
  return { trigger: `github.${trigger}`, dedupeKey, event, facts };
}

/** Drops absent (undefined or null) top-level members so events and facts stay small. */
export function compact<T extends Record<string, unknown>>(value: T): T {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined && v !== null)) as T;
}

const openingWindowMs = 1000;

/**
 * One user action, one event: an issue or pull request opened with labels, assignees,
 * reviewers or a milestone is sent as `opened` (already carrying them) followed at once by
 * `labeled` / `assigned` / `review_requested` / `milestoned`. Those carry the object as it is
 * after the action: when it has not changed since it was created (`updated_at` equal to
 * `created_at`), the action was part of the opening; a later action moves `updated_at`.
 * The code host's times have whole seconds, and creating with labels may straddle a second,
 * so up to one second apart counts as the opening (an automation labeling within that second
 * is, to the user, part of opening it too). Needs no state. Undated bodies are not held back.
 */
export function partOfOpening(subject: { created_at?: string | null | undefined; updated_at?: string | null | undefined }): boolean {
  const age = ageAtAction(subject);
  return age !== undefined && age <= openingWindowMs;
}

/**
 * How long the opener's own additions may follow the opening and still be part of it. A pull
 * request made through the REST API, `gh pr create -l -a -r` or a bot (Renovate,
 * release-please) is created bare and then labeled, assigned and given reviewers in separate
 * calls: the code host's published `labeled` example is 2 s after `created_at`, Enterprise
 * Server's 3 s. Ten seconds covers a slow client's three calls; a change a minute later, or
 * anyone else's change, is an update.
 */
export const openerAdditionWindowMs = 10_000;

/**
 * An addition the opener made right after opening: the sender is the subject's author and the
 * subject, as the delivery carries it (a snapshot taken at the action, the same in a
 * redelivery and whatever order deliveries arrive in), changed at most
 * `openerAdditionWindowMs` after it was created. Needs no state.
 */
export function openerAddition(
  subject: {
    created_at?: string | null | undefined;
    updated_at?: string | null | undefined;
    user?: { login: string; id?: number | null | undefined } | null | undefined;
  },
  sender: { login: string; id?: number | null | undefined } | null | undefined,
): boolean {
  const age = ageAtAction(subject);
  if (age === undefined || age > openerAdditionWindowMs || !sender || !subject.user) return false;
  const { user } = subject;
  return typeof user.id === 'number' && typeof sender.id === 'number' ? user.id === sender.id : user.login === sender.login;
}

/** `updated_at - created_at` in ms, when both are dates. */
function ageAtAction(subject: { created_at?: string | null | undefined; updated_at?: string | null | undefined }): number | undefined {
  const created = Date.parse(subject.created_at ?? '');
  const updated = Date.parse(subject.updated_at ?? '');
  if (Number.isNaN(created) || Number.isNaN(updated)) return undefined;
  return updated - created;
}

/** Label names of an issue or pull request (the `labels` facts). */
export function labelNames(labels: ReadonlyArray<{ name: string }> | null | undefined): string[] | undefined {
  return labels ? labels.map((l) => l.name) : undefined;
}
