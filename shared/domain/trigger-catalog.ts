import type { TriggerSource } from './mapping/types';
import type { SubscriptionFilters, SubscriptionTarget } from './model';
import type { TriggerId, TriggerName } from './triggers';

/** What the platform shows and needs to know about one code-host trigger. */
export interface TriggerDefinition {
  id: TriggerId;
  title: string;
  /** CONTRACT.md's "fires when". */
  description: string;
  /** The webhook events a hook must carry to serve this trigger (empty: polled only). */
  events: readonly string[];
  /** Filters a subscription to this trigger may set. */
  filters: ReadonlyArray<keyof SubscriptionFilters>;
  /** How its events arrive for this target; undefined when the trigger does not apply to it. */
  source(target: SubscriptionTarget): TriggerSource | undefined;
}

type Where = 'repo-or-org' | 'org-only' | 'org-hook-or-account-poll' | 'account-poll';

interface Row {
  title: string;
  description: string;
  events: string[];
  filters: Array<keyof SubscriptionFilters>;
  where: Where;
}

/** One row per trigger. Repository-level events also reach organization hooks (for every repository). */
const rows: Record<TriggerName, Row> = {
  new_repository: { title: 'New repository', description: 'A repository is created in the account or organization.', events: ['repository'], filters: [], where: 'org-hook-or-account-poll' },
  new_fork: { title: 'New fork', description: 'The repository is forked.', events: ['fork'], filters: [], where: 'repo-or-org' },
  new_star: { title: 'New star', description: 'A user stars the repository.', events: ['star'], filters: [], where: 'repo-or-org' },
  // The code host's `watch` event (action `started`) is the one named for watching.
  new_watcher: { title: 'New watcher', description: 'A user starts watching the repository.', events: ['watch'], filters: [], where: 'repo-or-org' },
  // `create` is not sent for more than three tags at once: `push` to refs/tags/* fills the gap.
  new_tag: { title: 'New tag', description: 'A tag is pushed / created.', events: ['create', 'push'], filters: [], where: 'repo-or-org' },
  new_issue: { title: 'New issue', description: 'An issue is opened.', events: ['issues'], filters: ['labels'], where: 'repo-or-org' },
  updated_issue: { title: 'Updated issue', description: "An issue's title, body, labels, assignees or state changes.", events: ['issues'], filters: ['labels'], where: 'repo-or-org' },
  new_pull_request: { title: 'New pull request', description: 'A pull request is opened or marked ready for review.', events: ['pull_request'], filters: ['branches', 'labels'], where: 'repo-or-org' },
  updated_pull_request: { title: 'Updated pull request', description: 'A pull request is modified or changes state.', events: ['pull_request'], filters: ['branches', 'labels'], where: 'repo-or-org' },
  new_comment: { title: 'New comment', description: 'A comment is added to an issue or pull request.', events: ['issue_comment', 'pull_request_review_comment'], filters: ['labels'], where: 'repo-or-org' },
  new_label_on_issue: { title: 'New label on issue', description: 'A label is applied to an issue.', events: ['issues'], filters: ['labels'], where: 'repo-or-org' },
  new_review_request: { title: 'New review request', description: 'A reviewer is requested on a pull request.', events: ['pull_request'], filters: ['branches', 'labels'], where: 'repo-or-org' },
  new_pull_request_review: { title: 'New pull request review', description: 'A review is submitted.', events: ['pull_request_review'], filters: ['branches', 'labels'], where: 'repo-or-org' },
  new_commit: { title: 'New commit', description: 'A commit is pushed to any branch (one event per commit).', events: ['push'], filters: ['branches'], where: 'repo-or-org' },
  new_push: { title: 'New push', description: 'Any push, multi-commit pushes included (one event per push).', events: ['push'], filters: ['branches'], where: 'repo-or-org' },
  new_branch: { title: 'New branch', description: 'A branch is created.', events: ['create'], filters: ['branches'], where: 'repo-or-org' },
  workflow_run_completed: { title: 'Workflow run completed', description: 'A workflow run finishes: succeeded, failed or cancelled.', events: ['workflow_run'], filters: ['branches'], where: 'repo-or-org' },
  workflow_job_completed: { title: 'Workflow job completed', description: 'A job of a run completes.', events: ['workflow_job'], filters: ['branches'], where: 'repo-or-org' },
  new_collaborator: { title: 'New collaborator', description: 'A collaborator is added to a repository.', events: ['member'], filters: [], where: 'repo-or-org' },
  new_mention: {
    title: 'New mention',
    description: 'The connected account is @-mentioned in an issue, pull request or comment.',
    events: ['commit_comment', 'discussion', 'discussion_comment', 'issue_comment', 'issues', 'pull_request', 'pull_request_review', 'pull_request_review_comment'],
    filters: ['labels'],
    where: 'repo-or-org',
  },
  // Projects (v2) item events are sent to organization hooks only.
  project_item_status_changed: { title: 'Project item status changed', description: "A Projects (v2) item's status changes.", events: ['projects_v2_item'], filters: ['project'], where: 'org-only' },
  new_card_in_column: { title: 'New card in column', description: 'A card is added to a given column of a classic project board.', events: ['project_card'], filters: ['column'], where: 'repo-or-org' },
  new_release: { title: 'New release', description: 'A release is published.', events: ['release'], filters: [], where: 'repo-or-org' },
  // Gists have no webhook at all.
  new_gist: { title: 'New gist', description: 'A gist is created in the account.', events: [], filters: [], where: 'account-poll' },
  new_discussion: { title: 'New discussion', description: 'A discussion is opened.', events: ['discussion'], filters: ['labels'], where: 'repo-or-org' },
  new_discussion_comment: { title: 'New discussion comment', description: 'A comment is added to a discussion.', events: ['discussion_comment'], filters: ['labels'], where: 'repo-or-org' },
};

function sourceOf(row: Row, target: SubscriptionTarget): TriggerSource | undefined {
  const webhook = (scope: 'repository' | 'organization' | 'either'): TriggerSource => ({ kind: 'webhook', scope, events: [...row.events] });
  switch (row.where) {
    case 'repo-or-org':
      return target.kind === 'account' ? undefined : webhook('either');
    case 'org-only':
      return target.kind === 'organization' ? webhook('organization') : undefined;
    case 'org-hook-or-account-poll':
      // A user account's new repositories have no webhook: polled.
      if (target.kind === 'organization') return webhook('organization');
      return target.kind === 'account' ? { kind: 'polling' } : undefined;
    case 'account-poll':
      return target.kind === 'account' ? { kind: 'polling' } : undefined;
  }
}

export const triggerCatalog: Readonly<Record<TriggerId, TriggerDefinition>> = Object.fromEntries(
  (Object.entries(rows) as Array<[TriggerName, Row]>).map(([name, row]) => {
    const id: TriggerId = `github.${name}`;
    const definition: TriggerDefinition = {
      id,
      title: row.title,
      description: row.description,
      events: row.events,
      filters: row.filters,
      source: (target) => sourceOf(row, target),
    };
    return [id, definition];
  }),
) as Record<TriggerId, TriggerDefinition>;

/** The webhook events one hook must carry to serve these triggers: the union, sorted. */
export function webhookEventsFor(triggers: readonly TriggerId[]): string[] {
  return [...new Set(triggers.flatMap((t) => triggerCatalog[t].events))].sort();
}
