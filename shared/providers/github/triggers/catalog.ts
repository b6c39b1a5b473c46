import type { TriggerSource } from '../../../domain/mapping/types';
import type { SubscriptionFilters, SubscriptionTarget } from '../../../domain/model';
import type { TriggerDefinition } from '../../../domain/trigger-catalog';
import type { GitHubTriggerId, TriggerName } from '../../../domain/triggers';
import { triggerGrant } from '../../../domain/trigger-permissions';

/** The code host's rows of the trigger catalog: what each trigger is, which events serve it, and where. */

type Where = 'repo-or-org' | 'org-only' | 'org-hook-or-account-poll' | 'account-poll' | 'repo-poll';

interface Row {
  title: string;
  description: string;
  /** What counts and what does not, as the code host really behaves (docs/triggers.md). */
  includes: string;
  events: string[];
  filters: Array<keyof SubscriptionFilters>;
  where: Where;
}

/** One row per trigger. Repository-level events also reach organization hooks (for every repository). */
const rows: Record<TriggerName, Row> = {
  new_repository: {
    title: 'New repository',
    description: 'A repository is created in the account or organization.',
    includes:
      'Organizations: the `repository` `created` webhook. A user account has no such webhook: its owned repositories are polled. A repository seen both ways is announced once.',
    events: ['repository'],
    filters: [],
    where: 'org-hook-or-account-poll',
  },
  new_fork: {
    title: 'New fork',
    description: 'The repository is forked.',
    includes: 'Every `fork` delivery.',
    events: ['fork'],
    filters: [],
    where: 'repo-or-org',
  },
  new_star: {
    title: 'New star',
    description: 'A user stars the repository.',
    includes:
      'The `star` `created` webhook. The code host also sends `watch` `started` for the same star (its legacy name for starring): that one is ignored, so a star is announced once. Un-starring fires nothing.',
    events: ['star'],
    filters: [],
    where: 'repo-or-org',
  },
  new_watcher: {
    title: 'New watcher',
    description: 'A user starts watching (subscribes to) the repository.',
    includes:
      "Polled: the code host has no webhook for watching (its `watch` event is sent for stars, see new_star). The repository's subscribers are read with ETags; those watching when the subscription was made are not announced; each user once per subscription. Repositories only, up to the first 1,000 watchers.",
    events: [],
    filters: [],
    where: 'repo-poll',
  },
  new_tag: {
    title: 'New tag',
    description: 'A tag is pushed / created.',
    includes:
      "The `create` webhook for a tag, and for a repository also a conditional poll of its tags list (each poll round; unchanged pages answer 304, free of rate limit), because the code host sends neither `create` nor `push` for tags pushed more than three at once. Each tag name once per subscription, whichever way it is seen first; the tags listed at subscription time are not announced. Limits: the poll reads the first 1,000 tags listed; an organization's repositories are not polled (their tags pushed more than three at once are not seen); a tag deleted and created again under the same name within 30 days is not announced again.",
    events: ['create'],
    filters: [],
    where: 'repo-or-org',
  },
  new_issue: {
    title: 'New issue',
    description: 'An issue is opened.',
    includes: 'Issues opened (not pull requests). Labels and assignees given at opening are part of this event.',
    events: ['issues'],
    filters: ['labels'],
    where: 'repo-or-org',
  },
  updated_issue: {
    title: 'Updated issue',
    description: "An issue's title, body, labels, assignees or state changes.",
    includes:
      'Edited, closed, reopened, (un)labeled, (un)assigned. Not: the labels and assignees GitHub sends right after an issue is opened with them (within a second of its creation; that is new_issue), locks, pins, milestones, transfers, pull requests.',
    events: ['issues'],
    filters: ['labels'],
    where: 'repo-or-org',
  },
  new_pull_request: {
    title: 'New pull request',
    description: 'A pull request is opened or marked ready for review.',
    includes:
      'Opened while not a draft, or a draft marked ready for review. One event per opening: labels, assignees and reviewers the opener adds within 10 s (the REST API, `gh pr create` and bots add them in calls of their own after creating) are part of it, and a labels filter sees them.',
    events: ['pull_request'],
    filters: ['branches', 'labels'],
    where: 'repo-or-org',
  },
  updated_pull_request: {
    title: 'Updated pull request',
    description: 'A pull request is modified or changes state.',
    includes:
      'Edited, new commits, closed/merged, reopened, draft <-> ready, labels, assignees, requested reviewers, milestone, lock. Not: the labels, assignees, reviewers and milestone given at opening, in the same second or by the opener within 10 s of it (that is new_pull_request), auto-merge and merge-queue bookkeeping.',
    events: ['pull_request'],
    filters: ['branches', 'labels'],
    where: 'repo-or-org',
  },
  new_comment: {
    title: 'New comment',
    description: 'A comment is added to an issue or pull request.',
    includes:
      'Issue and pull-request conversation comments, and inline review comments (replies included). Not review summaries (new_pull_request_review).',
    events: ['issue_comment', 'pull_request_review_comment'],
    filters: ['labels'],
    where: 'repo-or-org',
  },
  new_label_on_issue: {
    title: 'New label on issue',
    description: 'A label is applied to an issue.',
    includes: 'Every label applied to an issue, at opening too. The labels filter matches the applied label.',
    events: ['issues'],
    filters: ['labels'],
    where: 'repo-or-org',
  },
  new_review_request: {
    title: 'New review request',
    description: 'A reviewer is requested on a pull request.',
    includes: 'Every reviewer or team requested, at opening too.',
    events: ['pull_request'],
    filters: ['branches', 'labels'],
    where: 'repo-or-org',
  },
  new_pull_request_review: {
    title: 'New pull request review',
    description: 'A review is submitted.',
    includes:
      'Approvals, change requests, comment reviews with a summary, and comment reviews of inline comments only ("Submit review -> Comment" with an empty summary). A `commented` review without a summary is read back once after the delivery was answered (its comments, with the connection\'s token): the empty review GitHub wraps around one inline comment or reply made outside a review is not announced (that comment is new_comment). Limits: a review of exactly one inline comment written at the moment it was submitted (a tool creating review and comment in one call) reads as such a wrapper; when the read cannot be made (no access, rate limit) the review is announced.',
    events: ['pull_request_review'],
    filters: ['branches', 'labels'],
    where: 'repo-or-org',
  },
  new_commit: {
    title: 'New commit',
    description: 'A commit is pushed to any branch (one event per commit).',
    includes:
      "Each commit new to the repository, once even when it reaches several branches. Not tags, not commits already in the repository. A push payload carries at most 2,048 commits: the rest are read through the compare API after the delivery was answered (with the connection's token, within its rate budget) and announced the same way, without their file lists. Limits: at most 20,000 commits beyond the payload per push; the commits read that way are not checked for being already in the repository; a new branch's first push is compared with the default branch (the default branch's own first push beyond 2,048 commits is not read).",
    events: ['push'],
    filters: ['branches'],
    where: 'repo-or-org',
  },
  new_push: {
    title: 'New push',
    description: 'Any push, multi-commit pushes included (one event per push).',
    includes:
      'Pushes to branches and tags. Not ref deletions; not tags pushed more than three at once (the code host sends nothing for them).',
    events: ['push'],
    filters: ['branches'],
    where: 'repo-or-org',
  },
  new_branch: {
    title: 'New branch',
    description: 'A branch is created.',
    includes: 'The `create` webhook for a branch, once per creation: a branch deleted and created again fires again.',
    events: ['create'],
    filters: ['branches'],
    where: 'repo-or-org',
  },
  workflow_run_completed: {
    title: 'Workflow run completed',
    description: 'A workflow run finishes: succeeded, failed or cancelled.',
    includes: "Completed runs, with `outcome` beside the code host's `conclusion`.",
    events: ['workflow_run'],
    filters: ['branches'],
    where: 'repo-or-org',
  },
  workflow_job_completed: {
    title: 'Workflow job completed',
    description: 'A job of a run completes.',
    includes: 'Completed jobs, with `outcome`.',
    events: ['workflow_job'],
    filters: ['branches'],
    where: 'repo-or-org',
  },
  new_collaborator: {
    title: 'New collaborator',
    description: 'A collaborator is added to a repository.',
    includes:
      "`member` `added`; `role` is the code host's `changes.role_name` (custom roles included) when sent, else the legacy permission.",
    events: ['member'],
    filters: [],
    where: 'repo-or-org',
  },
  new_mention: {
    title: 'New mention',
    description: 'The connected account is @-mentioned in an issue, pull request or comment.',
    includes:
      'Bodies of issues, pull requests, reviews, comments and discussions, when created or edited to add the mention. Not titles, code, or self-mentions.',
    events: [
      'commit_comment',
      'discussion',
      'discussion_comment',
      'issue_comment',
      'issues',
      'pull_request',
      'pull_request_review',
      'pull_request_review_comment',
    ],
    filters: ['labels'],
    where: 'repo-or-org',
  },
  // Projects (v2) item events are sent to organization hooks only.
  project_item_status_changed: {
    title: 'Project item status changed',
    description: "A Projects (v2) item's status changes.",
    includes: 'Changes of the Status field of items of organization projects (organization hooks only). Not other fields.',
    events: ['projects_v2_item'],
    filters: ['project'],
    where: 'org-only',
  },
  new_card_in_column: {
    title: 'New card in column',
    description:
      'A card is added to a given column of a classic project board (GitHub Enterprise Server only: classic projects left github.com on 2025-04-01).',
    includes:
      "A card created in, or moved into, the column (not a reorder within it). Payloads carry column ids only: the column filter takes the id, or the column's name, looked up once when subscribing among the repository's (or organization's) classic projects and stored as its id; a name found in several projects is refused with their ids.",
    events: ['project_card'],
    filters: ['column'],
    where: 'repo-or-org',
  },
  new_release: {
    title: 'New release',
    description: 'A release is published.',
    includes: 'Published releases, once each (not drafts, edits or the extra `released`/`prereleased` deliveries).',
    events: ['release'],
    filters: [],
    where: 'repo-or-org',
  },
  // Gists have no webhook at all.
  new_gist: {
    title: 'New gist',
    description: 'A gist is created in the account.',
    includes: "Polled: the account's gists, newest first, page after page until what was already seen (up to 10 pages).",
    events: [],
    filters: [],
    where: 'account-poll',
  },
  new_discussion: {
    title: 'New discussion',
    description: 'A discussion is opened.',
    includes: 'Discussions created.',
    events: ['discussion'],
    filters: ['labels'],
    where: 'repo-or-org',
  },
  new_discussion_comment: {
    title: 'New discussion comment',
    description: 'A comment is added to a discussion.',
    includes: 'Discussion comments and replies created.',
    events: ['discussion_comment'],
    filters: ['labels'],
    where: 'repo-or-org',
  },
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
    case 'repo-poll':
      return target.kind === 'repository' ? { kind: 'polling' } : undefined;
  }
}

/** The code host's part of the catalog (its `triggers` part of the provider contract), in the rows' order. */
export const githubTriggers: Readonly<Record<GitHubTriggerId, TriggerDefinition>> = Object.fromEntries(
  (Object.entries(rows) as Array<[TriggerName, Row]>).map(([name, row]) => {
    const id: GitHubTriggerId = `github.${name}`;
    const definition: TriggerDefinition = {
      id,
      provider: 'github',
      title: row.title,
      description: row.description,
      includes: row.includes,
      events: row.events,
      filters: row.filters,
      source: (target) => sourceOf(row, target),
      permissions: (target) => {
        const source = sourceOf(row, target);
        return source && triggerGrant(name, target, source);
      },
    };
    return [id, definition];
  }),
) as Record<GitHubTriggerId, TriggerDefinition>;
