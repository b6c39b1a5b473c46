/** The 26 code-host trigger ids (docs/api.md), without the `github.` prefix. */
export const triggerNames = [
  'new_repository',
  'new_fork',
  'new_star',
  'new_watcher',
  'new_tag',
  'new_issue',
  'updated_issue',
  'new_pull_request',
  'updated_pull_request',
  'new_comment',
  'new_label_on_issue',
  'new_review_request',
  'new_pull_request_review',
  'new_commit',
  'new_push',
  'new_branch',
  'workflow_run_completed',
  'workflow_job_completed',
  'new_collaborator',
  'new_mention',
  'project_item_status_changed',
  'new_card_in_column',
  'new_release',
  'new_gist',
  'new_discussion',
  'new_discussion_comment',
] as const;

export type TriggerName = (typeof triggerNames)[number];
export type TriggerId = `github.${TriggerName}`;

export const triggerIds: readonly TriggerId[] = triggerNames.map((n) => `github.${n}` as const);

export function isTriggerId(value: string): value is TriggerId {
  return (triggerIds as readonly string[]).includes(value);
}
